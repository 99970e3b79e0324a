import type { Module } from "../../context.ts";

export const listsModule: Module = {
  name: "lists",
};
