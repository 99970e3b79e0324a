// The optional plain-HTTP port: it answers every request 403 HTTPS_REQUIRED and processes nothing
// (the body is never read; the connection is closed after the answer).
import http from "node:http";
import type { AddressInfo } from "node:net";

const INCOMING_PATH = /^\/v1\/incoming[_-]custom[_-]channel[_-]message(?:[/?]|$)/;
const MESSAGE = "Only HTTPS is accepted; this port serves plain HTTP and processes nothing.";

export interface HttpRefuser {
  port: number;
  close(): Promise<void>;
}

export async function startHttpRefuser(host: string, port: number): Promise<HttpRefuser> {
  const server = http.createServer((req, res) => {
    // The incoming-message endpoint uses the simple error form everywhere, even here.
    const body = INCOMING_PATH.test(req.url ?? "")
      ? { error: MESSAGE }
      : { error: { code: "HTTPS_REQUIRED", message: MESSAGE } };
    res.writeHead(403, { "content-type": "application/json; charset=utf-8", connection: "close" });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
