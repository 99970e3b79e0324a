// Exports (issue 38): contacts and conversations as CSV or JSON Lines, streamed. Reads other modules'
// tables, writes none.
import type { Module } from "../../context.ts";
import { exportRoutes } from "./routes.ts";

export const exportsModule: Module = {
  name: "exports",
  routes: exportRoutes,
};
