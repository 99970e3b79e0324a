// Outbound delivery: the send endpoints, resend, and the signed webhook jobs for messages and events.
import type { Module } from "../../context.ts";
import { deliver } from "./deliver.ts";
import { deliveryJob, eventDeliveryJob } from "./jobs.ts";
import { deleteAttemptsOfContact } from "./repo.ts";
import { deliveryRoutes } from "./routes.ts";

export const deliveryModule: Module = {
  name: "delivery",
  routes: deliveryRoutes,
  jobs(worker, ctx) {
    worker.register(deliveryJob, (payload, job) => deliver(ctx, payload, job));
    worker.register(eventDeliveryJob, (payload, job) => deliver(ctx, payload, job));
  },
  async onContactErased(trx, { accountId, contactId }) {
    await deleteAttemptsOfContact(trx, accountId, contactId);
  },
};
