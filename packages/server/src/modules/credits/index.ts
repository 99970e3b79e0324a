import type { Module } from "../../context.ts";

export const creditsModule: Module = {
  name: "credits",
};
