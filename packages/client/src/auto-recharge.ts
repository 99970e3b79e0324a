// Auto-recharge: Parley sends `subaccount.auto_recharge` to the agency's events URL, signed and retried
// (so possibly more than once, concurrently, or after the receiver crashed). The handler grants
// `recharge_amount` once per `idempotency_key`:
//   1. claim the key in the store atomically (new -> pending);
//   2. grant with `Idempotency-Key: <idempotency_key>` (the server replays a repeat for 24 h instead of
//      granting again, so a crash between 1 and 3 followed by a redelivery cannot grant twice);
//   3. mark the key done; later deliveries are acknowledged without calling the API.
// A key found pending (a crash, or another process at work) is first looked up in the sub-account's
// transaction history by its description, which covers redeliveries after the server's 24 h window.
import type { Parley } from "./client.ts";
import type { ResponseBody } from "./operations.ts";
import type { AutoRechargeEvent, ParleyEvent } from "./webhooks.ts";

export type ClaimState = "new" | "pending" | "done";

/** Where handled keys are recorded. Implement it on Redis (SET NX + a status), SQL (insert on conflict)... */
export interface IdempotencyStore {
  /**
   * Atomically records `key` as pending when it is unknown and returns "new"; otherwise returns its
   * state without changing it ("pending": claimed but not finished; "done": granted).
   */
  claim(key: string): Promise<ClaimState>;
  /** Marks a claimed key done. */
  complete(key: string): Promise<void>;
}

/** In one process's memory (tests, a single short-lived receiver). */
export class MemoryStore implements IdempotencyStore {
  readonly #states = new Map<string, Exclude<ClaimState, "new">>();

  async claim(key: string): Promise<ClaimState> {
    const state = this.#states.get(key);
    if (state) return state;
    this.#states.set(key, "pending");
    return "new";
  }

  async complete(key: string): Promise<void> {
    this.#states.set(key, "done");
  }

  /** The recorded state of a key (undefined when never claimed). */
  state(key: string): Exclude<ClaimState, "new"> | undefined {
    return this.#states.get(key);
  }
}

/**
 * In a directory (created if missing): one file per key, created with O_EXCL, so a claim is atomic
 * across processes on one machine; the file's content ("pending" / "done") is replaced by rename.
 */
export class FileStore implements IdempotencyStore {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  #file(key: string): string {
    // Keys are ar_<id>; anything else is hex-encoded so it can never leave the directory.
    const name = /^[A-Za-z0-9_-]{1,200}$/.test(key)
      ? key
      : `x${Array.from(new TextEncoder().encode(key), (b) => b.toString(16).padStart(2, "0")).join("")}`;
    return `${this.dir}/${name}.key`;
  }

  async claim(key: string): Promise<ClaimState> {
    const fs = await import("node:fs/promises");
    await fs.mkdir(this.dir, { recursive: true });
    const file = this.#file(key);
    try {
      const handle = await fs.open(file, "wx");
      try {
        await handle.writeFile("pending");
        await handle.sync();
      } finally {
        await handle.close();
      }
      return "new";
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const content = (await fs.readFile(file, "utf8")).trim();
      return content === "done" ? "done" : "pending";
    }
  }

  async complete(key: string): Promise<void> {
    const fs = await import("node:fs/promises");
    const file = this.#file(key);
    // Unique per call: two completions in one process within a millisecond must not share a temp file.
    const { randomUUID } = await import("node:crypto");
    const tmp = `${file}.${process.pid}.${randomUUID()}.tmp`;
    await fs.writeFile(tmp, "done");
    await fs.rename(tmp, file);
  }
}

export type AutoRechargeResult =
  | { status: "granted"; grant: ResponseBody<"grantSubaccountCredits"> }
  | { status: "duplicate" }
  | { status: "ignored" };

export interface AutoRechargeHandlerOptions {
  /** A client with the agency's API key. */
  client: Parley;
  store: IdempotencyStore;
  /** The transaction description (default: "Auto-recharge <idempotency_key>"; must contain the key). */
  description?: (event: AutoRechargeEvent) => string;
}

/**
 * Returns `handle(event)`: pass it every verified event (others are ignored). Answer your webhook with a
 * 2xx once it resolves; when it throws, answer 5xx so Parley delivers the event again.
 */
export function createAutoRechargeHandler(
  options: AutoRechargeHandlerOptions,
): (event: ParleyEvent) => Promise<AutoRechargeResult> {
  const { client, store } = options;
  const describe = options.description ?? ((e: AutoRechargeEvent) => `Auto-recharge ${e.idempotency_key}`);
  // Concurrent deliveries of one event in this process share one grant.
  const inFlight = new Map<string, Promise<AutoRechargeResult>>();

  async function run(event: AutoRechargeEvent): Promise<AutoRechargeResult> {
    const key = event.idempotency_key;
    const state = await store.claim(key);
    if (state === "done") return { status: "duplicate" };
    const description = describe(event);
    if (state === "pending" && (await alreadyGranted(event.sub_account_id, description))) {
      await store.complete(key);
      return { status: "duplicate" };
    }
    const grant = await client.subaccounts.grantCredits(
      { email: event.email, amount: event.recharge_amount, description },
      { idempotencyKey: key },
    );
    await store.complete(key);
    return { status: "granted", grant };
  }

  async function alreadyGranted(subAccountId: string, description: string): Promise<boolean> {
    const page = await client.subaccounts.transactions(subAccountId, { limit: 200 });
    return page.data.some((t) => t.kind === "grant" && t.description === description);
  }

  return async (event) => {
    if (event.type !== "subaccount.auto_recharge") return { status: "ignored" };
    const key = event.idempotency_key;
    if (!key) throw new TypeError("auto-recharge event without idempotency_key");
    const running = inFlight.get(key);
    if (running) return running.then((r) => (r.status === "granted" ? { status: "duplicate" } : r));
    const p = run(event).finally(() => inFlight.delete(key));
    inFlight.set(key, p);
    return p;
  };
}
