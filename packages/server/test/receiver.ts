// A real HTTP receiver on 127.0.0.1 for tests that need Parley to deliver somewhere (webhooks, test
// events): it records every request and answers with what `answer` sets (200 "ok" by default).
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  /** The URL to register, `http://127.0.0.1:<port>/hook`. */
  url: string;
  /** Every request so far, oldest first. */
  received: Received[];
  close(): Promise<void>;
}

export async function startReceiver(
  answer: (res: http.ServerResponse) => void = (res) => {
    res.writeHead(200);
    res.end("ok");
  },
): Promise<Receiver> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
      answer(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
