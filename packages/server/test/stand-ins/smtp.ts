// A local stand-in for an SMTP server (the `smtp-server` package) on 127.0.0.1: plain SMTP, no TLS, no
// authentication needed, accepting every message. Parley sends to it with SMTP_URL=<url>. Each message
// is kept raw and read back by a small MIME reader (headers, RFC 2047 subjects, multipart, quoted-
// printable and base64 parts): enough for what nodemailer writes, not a general e-mail parser.
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface ReceivedEmail {
  /** The envelope's recipients (RCPT TO), lower-case. */
  to: string[];
  /** The envelope's sender (MAIL FROM). */
  from: string;
  subject: string;
  /** The text/plain part ("" when there is none), with \n line ends. */
  text: string;
  /** The text/html part, when there is one. */
  html: string | null;
  /** Header names lower-case, folded lines joined, encoded words left as sent. */
  headers: Record<string, string>;
  raw: string;
}

export interface SmtpStandIn {
  /** smtp://127.0.0.1:<port> */
  url: string;
  messages: ReceivedEmail[];
  /** The first message (received so far or within the timeout) that `match` accepts. */
  waitFor(match: (m: ReceivedEmail) => boolean, timeoutMs?: number): Promise<ReceivedEmail>;
  close(): Promise<void>;
}

/**
 * `refuseFirst`: the first N messages are refused after their data with `451 4.3.0` (a temporary
 * failure in RFC 5321 terms: the sender should try again later), as a server under trouble answers.
 */
export async function startSmtpStandIn(options: { refuseFirst?: number } = {}): Promise<SmtpStandIn> {
  const messages: ReceivedEmail[] = [];
  let toRefuse = options.refuseFirst ?? 0;
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    // Plain text on loopback: nodemailer would otherwise upgrade to TLS with a certificate we lack.
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        if (toRefuse > 0) {
          toRefuse--;
          callback(Object.assign(new Error("4.3.0 Try again later"), { responseCode: 451 }));
          return;
        }
        const raw = Buffer.concat(chunks).toString("utf8");
        const envelope = session.envelope;
        messages.push({
          ...readMessage(raw),
          to: envelope.rcptTo.map((r) => r.address.toLowerCase()),
          from: envelope.mailFrom ? envelope.mailFrom.address : "",
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async waitFor(match, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const found = messages.find(match);
        if (found) return found;
        if (Date.now() > until) {
          const seen = messages.map((m) => `${m.to.join(",")}: ${m.subject}`).join("; ") || "none";
          throw new Error(`no matching e-mail within ${timeoutMs} ms (received: ${seen})`);
        }
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// ---- a small MIME reader ------------------------------------------------------------------------

interface Part {
  headers: Record<string, string>;
  body: string;
}

function splitPart(raw: string): Part {
  const text = raw.replace(/\r\n/g, "\n");
  const end = text.indexOf("\n\n");
  const head = end < 0 ? text : text.slice(0, end);
  const body = end < 0 ? "" : text.slice(end + 2);
  const headers: Record<string, string> = {};
  let last: string | null = null;
  for (const line of head.split("\n")) {
    if (/^[ \t]/.test(line) && last) {
      headers[last] += ` ${line.trim()}`;
      continue;
    }
    const i = line.indexOf(":");
    if (i <= 0) continue;
    last = line.slice(0, i).trim().toLowerCase();
    headers[last] = line.slice(i + 1).trim();
  }
  return { headers, body };
}

function param(header: string | undefined, name: string): string | null {
  const m = new RegExp(`;\\s*${name}="?([^";]+)"?`, "i").exec(header ?? "");
  return m?.[1] ?? null;
}

function decodeBody(part: Part): string {
  const encoding = (part.headers["content-transfer-encoding"] ?? "7bit").toLowerCase();
  if (encoding === "base64") return Buffer.from(part.body.replace(/\s+/g, ""), "base64").toString("utf8");
  if (encoding === "quoted-printable") {
    const bytes = part.body
      .replace(/=\n/g, "")
      .replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
    return Buffer.from(bytes, "latin1").toString("utf8");
  }
  return part.body;
}

/** RFC 2047 encoded words (=?utf-8?Q?…?= and =?utf-8?B?…?=), as nodemailer writes non-ASCII headers. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?([^?]+)\?([QB])\?([^?]*)\?=/gi, (_, _charset: string, kind: string, data: string) => {
      if (kind.toUpperCase() === "B") return Buffer.from(data, "base64").toString("utf8");
      const bytes = data
        .replace(/_/g, " ")
        .replace(/=([0-9A-F]{2})/gi, (__, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
      return Buffer.from(bytes, "latin1").toString("utf8");
    });
}

function leaves(part: Part): Part[] {
  const type = part.headers["content-type"] ?? "text/plain";
  const boundary = /^multipart\//i.test(type) ? param(type, "boundary") : null;
  if (!boundary) return [part];
  const pieces = part.body.split(`--${boundary}`).slice(1);
  return pieces.filter((p) => !p.startsWith("--")).flatMap((p) => leaves(splitPart(p.replace(/^\n/, ""))));
}

function readMessage(raw: string): Omit<ReceivedEmail, "to" | "from" | "raw"> {
  const top = splitPart(raw);
  const parts = leaves(top);
  const of = (type: string) =>
    parts.find((p) => (p.headers["content-type"] ?? "text/plain").toLowerCase().startsWith(type));
  const text = of("text/plain");
  const html = of("text/html");
  return {
    subject: decodeWords(top.headers.subject ?? ""),
    text: text ? decodeBody(text).replace(/\n$/, "") : "",
    html: html ? decodeBody(html) : null,
    headers: top.headers,
  };
}
