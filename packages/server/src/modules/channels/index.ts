// Built-in channels (DESIGN.md section 9): the channel model and API, and the web chat widget.
// Outbound messages of a built-in channel's conversations go through its adapter in the delivery job.
import type { Module } from "../../context.ts";
import { inboundRoutes } from "./inbound-routes.ts";
import { channelInboundJob, processInbound } from "./inbound-service.ts";
import { deleteVisitorsOfContact } from "./repo.ts";
import { channelRoutes } from "./routes.ts";
import { secretBox } from "./service.ts";
import { widgetRoutes } from "./widget-routes.ts";

export const channelsModule: Module = {
  name: "channels",
  async routes(app, ctx) {
    // The secret key is read (or generated into DATA_DIR) at start, not at the first channel.
    secretBox(ctx);
    channelRoutes(app, ctx);
    // The providers' webhooks (WhatsApp, Telegram, Twilio, Messenger, Instagram).
    await inboundRoutes(app, ctx);
    // The widget's public endpoints and /widget.js.
    await widgetRoutes(app, ctx);
  },
  jobs(worker, ctx) {
    secretBox(ctx);
    worker.register(channelInboundJob, (payload, job) => processInbound(ctx, payload, job));
  },
  async onContactErased(trx, { accountId, contactId }) {
    // A widget visitor's token stops working with its contact.
    await deleteVisitorsOfContact(trx, accountId, contactId);
  },
};
