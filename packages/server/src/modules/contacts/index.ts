import type { Module } from "../../context.ts";
import { contactRoutes } from "./routes.ts";

export const contactsModule: Module = {
  name: "contacts",
  routes: contactRoutes,
};
