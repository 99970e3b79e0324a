// Notifications: the bell, e-mail digests and the account events of what needs people (issue 35). Other
// modules call `notify` in their own transactions; the web app's routes are in app-api.
import type { Module } from "../../context.ts";
import { EMAIL_JOB, emailHandler, emailJob, Mailer } from "../../platform/mail.ts";
import { healthHandler, healthJob } from "./health.ts";
import { deferredHandler, deferredJob, digestHandler, digestJob } from "./service.ts";

export const notificationsModule: Module = {
  name: "notifications",
  jobs(worker, ctx) {
    const mailer = ctx.caches.get(EMAIL_JOB, () => new Mailer(ctx.config.smtp));
    worker.register(emailJob, emailHandler(mailer));
    worker.register(digestJob, digestHandler(ctx.db, ctx.config));
    worker.register(deferredJob, deferredHandler(ctx.db));
    worker.register(healthJob, healthHandler(ctx.db, ctx.config.deliveryHealthCheckMs));
    worker.recur(healthJob, {}, { firstRunInMs: ctx.config.deliveryHealthCheckMs });
  },
};
