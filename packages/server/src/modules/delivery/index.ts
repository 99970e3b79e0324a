import type { Module } from "../../context.ts";

export const deliveryModule: Module = {
  name: "delivery",
};
