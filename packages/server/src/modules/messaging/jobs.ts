// The jobs an incoming message starts, with their payloads: both act on one inbound message.
import { Type } from "typebox";
import { defineJob } from "../../platform/jobs.ts";

const OneMessage = Type.Object({ messageId: Type.String({ minLength: 1 }) });

/** Download, check and store a URL attachment (handled by this module). */
export const mediaFetchJob = defineJob("media.fetch", OneMessage, { subject: (p) => p.messageId });
/** Let the AI bot answer an inbound text message (handled by the bot module). */
export const botReplyJob = defineJob("bot.reply", OneMessage, { subject: (p) => p.messageId });

export const MEDIA_FETCH_JOB = mediaFetchJob.type;
export const BOT_REPLY_JOB = botReplyJob.type;
