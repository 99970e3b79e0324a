// Outbound delivery: the send endpoints, resend, and the signed webhook jobs for messages and events.
import type { Module } from "../../context.ts";
import { DELIVERY_JOB, EVENT_DELIVERY_JOB } from "./outbound.ts";
import { deliveryRoutes } from "./routes.ts";
import { deliverEvent, deliverMessage } from "./service.ts";

export const deliveryModule: Module = {
  name: "delivery",
  routes: deliveryRoutes,
  jobs(worker, ctx) {
    worker.register(DELIVERY_JOB, (payload, job) => deliverMessage(ctx, payload, job));
    worker.register(EVENT_DELIVERY_JOB, (payload, job) => deliverEvent(ctx, payload, job));
  },
};
