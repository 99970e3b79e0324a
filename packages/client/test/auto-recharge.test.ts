// The auto-recharge handler against a real server: one grant per idempotency_key when the same event is
// delivered twice, concurrently (also through two handlers sharing a FileStore, as two processes would),
// after a crash between recording the key and granting, and after a crash between granting and marking
// it done. End to end: the real worker delivers the signed event to a receiver that verifies it.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AutoRechargeEvent,
  createAutoRechargeHandler,
  FileStore,
  type IdempotencyStore,
  MemoryStore,
  type Parley,
  verifyWebhook,
} from "../src/index.ts";
import { type LiveServer, startLiveServer, startReceiver, uniqueEmail, waitFor } from "./helpers.ts";

describe("createAutoRechargeHandler", () => {
  let s: LiveServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let agency: Parley;
  let agencyId: string;
  let agencyEmail: string;
  let webhookSecret: string;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "parley-sdk-store-"));

  beforeAll(async () => {
    s = await startLiveServer({ DELIVERY_RETRY_SCHEDULE: "0.05,0.05,0.05" });
    receiver = await startReceiver(() => 500);
    agencyEmail = uniqueEmail("agency");
    const acc = await s.t.account({ email: agencyEmail, kind: "agency" });
    agencyId = acc.accountId;
    webhookSecret = acc.webhookSecret;
    agency = s.client(acc.apiKey);
  });
  afterAll(async () => {
    await s?.close();
    await receiver?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** A sub-account below its threshold: the server has recorded one real auto-recharge event for it. */
  async function firedEvent(): Promise<{ event: AutoRechargeEvent; subId: string }> {
    const email = uniqueEmail("sub");
    const sub = await agency.subaccounts.create({ email });
    await agency.subaccounts.grantCredits({ email, amount: 10 });
    await agency.subaccounts.setAutoRecharge(sub.id, { threshold: 5, rechargeAmount: 20 });
    await s.spend(sub.id, 6);
    const row = await s.t.parley.db.kysely
      .selectFrom("events")
      .selectAll()
      .where("account_id", "=", agencyId)
      .where("type", "=", "subaccount.auto_recharge")
      .execute();
    const event = row.map((r) => JSON.parse(r.payload) as AutoRechargeEvent).find((e) => e.email === email);
    if (!event) throw new Error("no auto-recharge event");
    expect(event).toMatchObject({ sub_account_id: sub.id, balance: 4, recharge_amount: 20 });
    return { event, subId: sub.id };
  }

  async function grants(subId: string) {
    const page = await agency.subaccounts.transactions(subId, { limit: 50 });
    return page.data.filter((t) => t.kind === "grant" && t.description?.startsWith("Auto-recharge"));
  }

  async function balance(subId: string) {
    return (await agency.subaccounts.get(subId)).credits;
  }

  it("the same event delivered twice grants once", async () => {
    const { event, subId } = await firedEvent();
    const handle = createAutoRechargeHandler({ client: agency, store: new MemoryStore() });
    expect((await handle(event)).status).toBe("granted");
    expect((await handle(event)).status).toBe("duplicate");
    expect(await grants(subId)).toHaveLength(1);
    expect(await balance(subId)).toBe(24);
  });

  it("concurrent deliveries grant once: in one handler, and through two handlers (processes) sharing a FileStore", async () => {
    const one = await firedEvent();
    const handle = createAutoRechargeHandler({ client: agency, store: new MemoryStore() });
    const results = await Promise.all(Array.from({ length: 5 }, () => handle(one.event)));
    expect(results.filter((r) => r.status === "granted")).toHaveLength(1);
    expect(await grants(one.subId)).toHaveLength(1);
    expect(await balance(one.subId)).toBe(24);

    const two = await firedEvent();
    const dir = path.join(tmp, "shared");
    const a = createAutoRechargeHandler({ client: agency, store: new FileStore(dir) });
    const b = createAutoRechargeHandler({ client: agency, store: new FileStore(dir) });
    await Promise.all([a(two.event), b(two.event), a(two.event), b(two.event)]);
    expect(await grants(two.subId)).toHaveLength(1);
    expect(await balance(two.subId)).toBe(24);
    expect(fs.readFileSync(path.join(dir, `${two.event.idempotency_key}.key`), "utf8")).toBe("done");
  });

  it("a crash between recording the key and granting: the redelivery grants, once", async () => {
    const { event, subId } = await firedEvent();
    const file = path.join(tmp, "crash-1");
    await new FileStore(file).claim(event.idempotency_key); // recorded as pending, then the process died
    const restarted = createAutoRechargeHandler({ client: agency, store: new FileStore(file) });
    expect((await restarted(event)).status).toBe("granted");
    expect((await restarted(event)).status).toBe("duplicate");
    expect(await grants(subId)).toHaveLength(1);
    expect(await balance(subId)).toBe(24);
  });

  it("a crash between granting and marking done: the redelivery does not grant again", async () => {
    const { event, subId } = await firedEvent();
    // A store whose complete() never happens (the process died after the grant).
    const crashing: IdempotencyStore = {
      claim: (k) => store.claim(k),
      complete: async () => {
        throw new Error("killed");
      },
    };
    const store = new FileStore(path.join(tmp, "crash-2"));
    await expect(createAutoRechargeHandler({ client: agency, store: crashing })(event)).rejects.toThrow(
      "killed",
    );
    expect(await grants(subId)).toHaveLength(1);

    const restarted = createAutoRechargeHandler({
      client: agency,
      store: new FileStore(path.join(tmp, "crash-2")),
    });
    expect((await restarted(event)).status).toBe("duplicate");
    expect(await grants(subId)).toHaveLength(1);
    expect(await balance(subId)).toBe(24);

    // Even without the store's help, the grant's Idempotency-Key replays instead of granting again.
    const forgetful = createAutoRechargeHandler({
      client: agency,
      store: { claim: async () => "new", complete: async () => {} },
    });
    await forgetful(event);
    expect(await grants(subId)).toHaveLength(1);
    expect(await balance(subId)).toBe(24);
  });

  it("ignores other events", async () => {
    const handle = createAutoRechargeHandler({ client: agency, store: new MemoryStore() });
    expect(
      await handle({
        type: "test",
        timestamp: new Date().toISOString(),
        data: { accountId: "a", message: "m" },
      }),
    ).toEqual({ status: "ignored" });
  });

  it("end to end: the worker's signed deliveries (the first answered 500, so it is retried) grant once", async () => {
    await s.setAccount(agencyEmail, { "events-webhook-url": receiver.url });
    const handle = createAutoRechargeHandler({ client: agency, store: new FileStore(path.join(tmp, "e2e")) });
    // Events fired by the tests above (before the URL was set) may arrive too; they count per key.
    const seen = new Map<string, number>();
    receiver.setHandler(async (d) => {
      const event = verifyWebhook(d.body, d.headers, webhookSecret);
      if (event.type !== "subaccount.auto_recharge") return 200;
      await handle(event);
      const n = (seen.get(event.sub_account_id) ?? 0) + 1;
      seen.set(event.sub_account_id, n);
      // Acknowledge only the second delivery: the event arrives (at least) twice.
      return n >= 2 ? 200 : 500;
    });
    s.t.parley.worker.start();
    const { subId } = await firedEvent();
    await waitFor(async () => (await balance(subId)) === 24, "the recharge");
    await waitFor(() => (seen.get(subId) ?? 0) >= 2, "the redelivery");
    expect(await grants(subId)).toHaveLength(1);
    expect(await balance(subId)).toBe(24);
  });
});
