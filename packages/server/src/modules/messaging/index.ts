import type { Module } from "../../context.ts";

export const messagingModule: Module = {
  name: "messaging",
};
