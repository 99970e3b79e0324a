// The delivery jobs and their payloads. One handler (deliver.ts) serves both kinds.
import { Type } from "typebox";
import { defineJob } from "../../platform/jobs.ts";

export const DeliveryTrigger = Type.Union([Type.Literal("scheduled"), Type.Literal("manual")], {
  description: "scheduled: the first attempt and the retry schedule; manual: a person's resend",
});

/** Delivery keeps its own retry schedule; the job's own attempt cap is only a safety net. */
const SAFETY_NET_ATTEMPTS = 100;

/** POST one outbound message to the account's custom channel webhook URL. */
export const deliveryJob = defineJob(
  "delivery",
  Type.Object({ messageId: Type.String({ minLength: 1 }), trigger: Type.Optional(DeliveryTrigger) }),
  { maxAttempts: SAFETY_NET_ATTEMPTS, subject: (p) => p.messageId },
);

/** POST one stored account event to the account's events webhook URL. */
export const eventDeliveryJob = defineJob(
  "event.delivery",
  Type.Object({ eventId: Type.String({ minLength: 1 }) }),
  { maxAttempts: SAFETY_NET_ATTEMPTS, subject: (p) => p.eventId },
);

export const DELIVERY_JOB = deliveryJob.type;
export const EVENT_DELIVERY_JOB = eventDeliveryJob.type;
