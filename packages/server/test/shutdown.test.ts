import https from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, type TestDatabase } from "./helpers.ts";
import { cliEnv, oneJsonLine, runCli, startServer } from "./process-helpers.ts";

describe("parley serve and SIGTERM", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(() => database.drop());

  it("lets an in-flight request finish, then exits 0", async () => {
    const env = cliEnv(database, { PORT: "0", HOST: "127.0.0.1" });
    const { apiKey } = oneJsonLine<{ apiKey: string }>(
      await runCli(
        ["account", "create", "--email", "shutdown@example.com", "--password", "s3cret-pass"],
        env,
      ),
    );
    const server = await startServer(["serve"], env);
    const port = new URL(String(server.line.url)).port;
    expect(server.line.status).toBe("serving");

    // Start a request and send only half of its body: it is in flight when SIGTERM arrives.
    const body = JSON.stringify({ firstName: "Ada", phone: "+14155550123" });
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = https.request(
        {
          host: "127.0.0.1",
          port,
          method: "POST",
          path: `/v1/contacts?apiKey=${apiKey}`,
          rejectUnauthorized: false,
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        },
        (res) => {
          let data = "";
          res.on("data", (c) => (data += c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: data }));
        },
      );
      req.on("error", reject);
      req.write(body.slice(0, 10));
      setTimeout(() => {
        server.child.kill("SIGTERM");
        // The rest of the body arrives after the signal.
        setTimeout(() => req.end(body.slice(10)), 300);
      }, 300);
    });
    const res = await response;
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body)).toMatchObject({ phone: "+14155550123", firstName: "Ada" });
    expect(await server.exited).toBe(0);

    // What was acknowledged is stored: a new server finds it.
    const again = await startServer(["serve", "--no-worker"], env);
    try {
      const port2 = new URL(String(again.line.url)).port;
      const found = await new Promise<number>((resolve, reject) => {
        https
          .get(
            {
              host: "127.0.0.1",
              port: port2,
              path: `/v1/contacts?phoneNumber=%2B14155550123&apiKey=${apiKey}`,
              rejectUnauthorized: false,
            },
            (r) => {
              r.resume();
              resolve(r.statusCode ?? 0);
            },
          )
          .on("error", reject);
      });
      expect(found).toBe(200);
    } finally {
      again.child.kill("SIGTERM");
      await again.exited;
    }
  });
});
