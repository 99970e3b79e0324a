import type { Module } from "../../context.ts";

export const botModule: Module = {
  name: "bot",
};
