// Retries: a real server's 429 is waited out for its Retry-After and repeated; 5xx and network errors are
// repeated only where repeating cannot do anything twice (reads, incoming messages, keyed grants).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { normalizeBaseUrl } from "../src/client.ts";
import { Parley, ParleyError } from "../src/index.ts";
import { type LiveServer, startLiveServer, uniqueEmail } from "./helpers.ts";

// The per-key limit lives in the API process (Redis across nodes), not in the database, and the test
// waits out a whole minute's window: run once, on the SQLite pass, not again on PostgreSQL's.
describe.skipIf(Boolean(process.env.DATABASE_URL))("429 from a real server (RATE_LIMIT_PER_MINUTE=3)", () => {
  let s: LiveServer;
  let apiKey: string;
  beforeAll(async () => {
    s = await startLiveServer({ RATE_LIMIT_PER_MINUTE: "3" });
    apiKey = (await s.t.account({ email: uniqueEmail("rl") })).apiKey;
  });
  afterAll(() => s?.close());

  it("is a RATE_LIMITED ParleyError with retryAfterMs; too long a wait fails at once; otherwise it waits Retry-After and succeeds", async () => {
    const attempts: Array<{ at: number; status: number; retryAfter: string | null }> = [];
    const client = s.client(apiKey, {
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        attempts.push({ at: Date.now(), status: res.status, retryAfter: res.headers.get("retry-after") });
        return res;
      },
    });
    for (let i = 0; i < 3; i++) await client.lists.list();

    const noRetry = await client.lists.list({}, { maxRetries: 0 }).catch((e) => e);
    expect(noRetry).toBeInstanceOf(ParleyError);
    expect(noRetry).toMatchObject({ status: 429, code: "RATE_LIMITED" });
    expect(noRetry.retryAfterMs).toBeGreaterThan(0);
    expect(noRetry.retryAfterMs).toBeLessThanOrEqual(60_000);

    // Longer than the caller will wait: the 429 comes back at once instead of a pointless sleep.
    const impatient = s.client(apiKey, { maxRetryAfterMs: 100 });
    const started = Date.now();
    await expect(impatient.lists.list()).rejects.toMatchObject({ status: 429 });
    expect(Date.now() - started).toBeLessThan(2_000);

    attempts.length = 0;
    const page = await client.lists.list();
    expect(page.data).toEqual([]);
    const [limited, retried] = attempts;
    expect(limited!.status).toBe(429);
    expect(retried!.status).toBe(200);
    expect(retried!.at - limited!.at).toBeGreaterThanOrEqual(Number(limited!.retryAfter) * 1000 - 50);
  }, 90_000);
});

/** A fetch that answers from a script, recording every call. */
function scripted(...answers: Array<Response | Error | (() => Response | Error)>) {
  const calls: Array<{ url: string; init: RequestInit | undefined; at: number }> = [];
  const f: typeof fetch = async (input, init) => {
    calls.push({ url: String(input), init, at: Date.now() });
    const next = answers.shift() ?? new Response("{}", { status: 200 });
    const a = typeof next === "function" ? next() : next;
    if (a instanceof Error) throw a;
    return a;
  };
  return { f, calls };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
const boom = () => json(503, { error: { code: "SERVICE_UNAVAILABLE", message: "down", requestId: "req_1" } });

function client(f: typeof fetch, extra: Partial<ConstructorParameters<typeof Parley>[0]> = {}) {
  return new Parley({
    apiKey: "pk_test",
    baseUrl: "https://parley.test/v1/",
    fetch: f,
    retryBaseDelayMs: 1,
    ...extra,
  });
}

describe("retry rules (scripted fetch)", () => {
  it("a 429 with Retry-After: 1 is repeated after a second, on any operation", async () => {
    const { f, calls } = scripted(
      json(429, { error: { code: "RATE_LIMITED", message: "slow" } }, { "retry-after": "1" }),
    );
    await client(f).messages.send({ customData: { fromId: "a", customChannel: "c", body: "b" } });
    expect(calls).toHaveLength(2);
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(990);
  });

  it("5xx and network errors are repeated for reads, incoming messages and keyed grants", async () => {
    let s = scripted(boom(), new TypeError("fetch failed"), json(200, { id: "ct_1" }));
    expect(await client(s.f).contacts.get("ct_1")).toEqual({ id: "ct_1" });
    expect(s.calls).toHaveLength(3);

    s = scripted(boom(), json(200, { success: true, messageId: "m" }));
    await client(s.f).messages.incoming({
      customData: { messageSid: "s", fromId: "f", toId: "t", body: "b" },
    });
    expect(s.calls).toHaveLength(2);

    s = scripted(new TypeError("socket hang up"), json(200, { success: true }));
    await client(s.f).subaccounts.grantCredits({ email: "e@x.io", amount: 1 }, { idempotencyKey: "k1" });
    expect(s.calls).toHaveLength(2);
    expect(new Headers(s.calls[1]!.init?.headers).get("idempotency-key")).toBe("k1");
  });

  it("5xx and network errors are not repeated for sends, creates and grants without a key", async () => {
    for (const call of [
      (p: Parley) => p.messages.send({ customData: { fromId: "a", customChannel: "c", body: "b" } }),
      (p: Parley) => p.contacts.create({ email: "a@b.co" }),
      (p: Parley) => p.subaccounts.grantCredits({ email: "e@x.io", amount: 1 }),
      (p: Parley) => p.messages.resend("m_1"),
    ]) {
      const s = scripted(boom());
      const err = await call(client(s.f)).catch((e) => e);
      expect(err).toMatchObject({ status: 503, code: "SERVICE_UNAVAILABLE", requestId: "req_1" });
      expect(s.calls).toHaveLength(1);
      const n = scripted(new TypeError("fetch failed"));
      expect(await call(client(n.f)).catch((e) => e)).toMatchObject({ status: 0, code: "NETWORK_ERROR" });
      expect(n.calls).toHaveLength(1);
    }
  });

  it("maxRetries bounds the attempts; a timeout is a TIMEOUT ParleyError", async () => {
    const s = scripted(boom(), boom(), boom(), boom());
    await expect(client(s.f, { maxRetries: 2 }).lists.list()).rejects.toMatchObject({ status: 503 });
    expect(s.calls).toHaveLength(3);

    const hang: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) =>
        init?.signal?.addEventListener("abort", () => reject(init.signal?.reason)),
      );
    await expect(client(hang, { timeoutMs: 50, maxRetries: 1 }).lists.list()).rejects.toMatchObject({
      status: 0,
      code: "TIMEOUT",
    });
  });

  it("a success answer that is not JSON is an INVALID_RESPONSE ParleyError", async () => {
    const s = scripted(
      new Response("<html>portal</html>", { status: 200, headers: { "x-request-id": "req_5" } }),
    );
    await expect(client(s.f).lists.list()).rejects.toMatchObject({
      status: 200,
      code: "INVALID_RESPONSE",
      requestId: "req_5",
    });
  });

  it("errors that are not JSON keep the status and the x-request-id header", async () => {
    const s = scripted(
      new Response("<html>bad gateway</html>", { status: 502, headers: { "x-request-id": "req_9" } }),
    );
    const err = await client(s.f, { maxRetries: 0 })
      .lists.list()
      .catch((e) => e);
    expect(err).toMatchObject({ status: 502, code: "SERVER_ERROR", requestId: "req_9" });
  });
});

describe("base URL", () => {
  it.each([
    "https://parley.test/v1/",
    "https://parley.test/v1",
    "https://parley.test/",
    "https://parley.test",
    "https://parley.test/v1//",
  ])("%s joins without //", async (baseUrl) => {
    const s = scripted();
    await new Parley({ apiKey: "k", baseUrl, fetch: s.f }).contacts.get("ct 1/2");
    expect(s.calls[0]!.url).toBe("https://parley.test/v1/contacts/ct%201%2F2");
  });

  it("keeps a path prefix", () => {
    expect(normalizeBaseUrl("https://h.test/parley/v1/")).toBe("https://h.test/parley");
  });
});
