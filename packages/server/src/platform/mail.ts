// E-mail: written as an `email.send` job in the transaction of what it tells about, then sent by the
// worker through SMTP_URL with nodemailer. A request never waits for an SMTP server, and a failing one
// is retried on the job schedule (a refusal the server calls permanent ends the job). Without SMTP_URL
// the e-mail is logged (recipient and subject only: bodies may carry sign-in links) and dropped.
import nodemailer, { type Transporter } from "nodemailer";
import { type Static, Type } from "typebox";
import type { Config } from "../config.ts";
import { backoffMs, defineJob, enqueueJobs, type JobHandler } from "./jobs.ts";

export interface Email {
  to: string;
  subject: string;
  /** The plain-text part (always sent). */
  text: string;
  /** An optional HTML part. */
  html?: string;
}

const EmailPayload = Type.Object({
  to: Type.String({ minLength: 3 }),
  subject: Type.String(),
  text: Type.String(),
  html: Type.Optional(Type.String()),
});

export const emailJob = defineJob("email.send", EmailPayload, { maxAttempts: 8 });

export const EMAIL_JOB = emailJob.type;

/** Queues one e-mail in the caller's transaction. */
export async function enqueueEmail(
  trx: Parameters<typeof enqueueJobs>[0],
  accountId: string | null,
  email: Email,
): Promise<void> {
  await enqueueJobs(trx, [emailJob.create(email, { accountId })]);
}

/** One SMTP transport per app (pooled connections), built on first use. */
export class Mailer {
  private transport: Transporter | null = null;
  private readonly smtp: Config["smtp"];
  constructor(smtp: Config["smtp"]) {
    this.smtp = smtp;
  }

  get configured(): boolean {
    return this.smtp !== null;
  }

  async send(email: Email): Promise<void> {
    if (!this.smtp) return;
    this.transport ??= nodemailer.createTransport(this.smtp.url, { from: this.smtp.from });
    await this.transport.sendMail({
      from: this.smtp.from,
      to: email.to,
      subject: email.subject,
      text: email.text,
      ...(email.html ? { html: email.html } : {}),
    });
  }

  clear(): void {
    this.transport?.close();
    this.transport = null;
  }
}

/** SMTP reply codes 5xx are permanent (a bad address); anything else (4xx, no connection) is retried. */
function permanent(err: unknown): boolean {
  const code = (err as { responseCode?: unknown }).responseCode;
  return typeof code === "number" && code >= 500 && code < 600;
}

export function emailHandler(mailer: Mailer): JobHandler<Static<typeof EmailPayload>> {
  return async (email, job) => {
    if (!mailer.configured) {
      job.log.info({ to: email.to, subject: email.subject }, "e-mail not sent: SMTP_URL is not set");
      return undefined;
    }
    try {
      await mailer.send(email);
      job.log.debug({ subject: email.subject }, "e-mail sent");
      return undefined;
    } catch (err) {
      // The server's words, without the address book: the code and its first line only.
      const e = err as { responseCode?: number; code?: string; message?: string };
      const error = `smtp ${e.responseCode ?? e.code ?? "error"}: ${String(e.message ?? "")
        .split("\n")[0]
        ?.slice(0, 200)}`;
      job.log.warn({ subject: email.subject, attempt: job.attempt, error }, "e-mail not sent");
      if (permanent(err)) return { dead: true, error };
      return { retryAt: Date.now() + backoffMs(job.attempt), error };
    }
  };
}
