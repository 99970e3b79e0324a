import type { Module } from "../../context.ts";

export const contactsModule: Module = {
  name: "contacts",
};
