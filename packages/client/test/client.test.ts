// Every /v1 operation through the SDK against a real server on 127.0.0.1: the typed methods send what
// the endpoint expects (key, path, query, body) and return its answer. A fetch wrapper records which
// operations were called; the last test fails when one in OPERATIONS was never exercised.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLlmStub } from "../../server/test/llm-stub.ts";
import { OPERATIONS, type OperationId, type Parley, ParleyError } from "../src/index.ts";
import { type LiveServer, startLiveServer, startReceiver, uniqueEmail, waitFor } from "./helpers.ts";

const PNG_1x1 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

const called = new Set<OperationId>();
const seenUrls: string[] = [];

function operationOf(method: string, url: string): OperationId | undefined {
  const path = new URL(url).pathname;
  for (const [id, spec] of Object.entries(OPERATIONS)) {
    if (spec.method.toUpperCase() !== method) continue;
    const re = new RegExp(`^${spec.path.replace(/\{\w+\}/g, "[^/]+")}$`);
    if (re.test(path)) return id as OperationId;
  }
  return undefined;
}

const recordingFetch: typeof fetch = async (input, init) => {
  const url = String(input);
  seenUrls.push(url);
  const res = await fetch(input, init);
  const id = operationOf(init?.method ?? "GET", url);
  if (id && res.ok) called.add(id);
  return res;
};

describe("Parley client against a real server", () => {
  let s: LiveServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let parley: Parley;
  let agency: Parley;
  let accountEmail: string;

  beforeAll(async () => {
    s = await startLiveServer({ DELIVERY_RETRY_SCHEDULE: "0.05,0.05" });
    s.t.parley.worker.start();
    receiver = await startReceiver();
    accountEmail = uniqueEmail("acct");
    const acc = await s.t.account({ email: accountEmail });
    await s.setAccount(accountEmail, { "webhook-url": receiver.url });
    parley = s.client(acc.apiKey, { fetch: recordingFetch });
    const ag = await s.t.account({ email: uniqueEmail("agency"), kind: "agency" });
    agency = s.client(ag.apiKey, { fetch: recordingFetch });
  });
  afterAll(async () => {
    await s?.close();
    await receiver?.close();
  });

  it("account.get", async () => {
    const a = await parley.account.get();
    expect(a.email).toBe(accountEmail);
    expect(a.webhookUrl).toBe(receiver.url);
  });

  it("account.setBusinessHours and getBusinessHours", async () => {
    const set = await parley.account.setBusinessHours({
      businessHours: {
        timezone: "Europe/Berlin",
        days: { monday: [{ open: "09:00", close: "17:00" }] },
        holidays: ["2026-12-25"],
      },
    });
    expect(set.businessHours?.days.monday).toEqual([{ open: "09:00", close: "17:00" }]);
    const got = await parley.account.getBusinessHours();
    expect(got.businessHours?.timezone).toBe("Europe/Berlin");
    expect(typeof got.openNow).toBe("boolean");
    const err = await parley.account
      .setBusinessHours({ businessHours: { timezone: "Nowhere/Town", days: {} } })
      .catch((e) => e);
    expect(err).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
    expect((await parley.account.setBusinessHours({ businessHours: null })).businessHours).toBeNull();
  });

  it("contacts: create (201, then the same phone returns the existing one), lookup, get, update, replace", async () => {
    const c = await parley.contacts.create({
      firstName: "Ada",
      phone: "+1 415 555 0100",
      email: "Ada@Example.com",
    });
    expect(c).toMatchObject({ firstName: "Ada", phone: "+14155550100", email: "ada@example.com" });
    expect(c.id).toEqual(expect.any(String));
    const again = await parley.contacts.create({ phone: "+14155550100" });
    expect(again.id).toBe(c.id);

    const byPhone = await parley.contacts.lookup({ phoneNumber: "+1 (415) 555-0100" });
    expect(byPhone).toMatchObject({ success: true, contactId: c.id });
    const byEmail = await parley.contacts.lookup({ email: "ADA@example.com" });
    expect(byEmail.contactId).toBe(c.id);

    expect((await parley.contacts.get(c.id)).id).toBe(c.id);
    const updated = await parley.contacts.update(c.id, { lastName: "Lovelace" });
    expect(updated).toMatchObject({ firstName: "Ada", lastName: "Lovelace" });
    const replaced = await parley.contacts.replace(c.id, { firstName: "Augusta", phone: "+14155550100" });
    expect(replaced).toMatchObject({ firstName: "Augusta", phone: "+14155550100" });

    const missing = await parley.contacts.lookup({ email: "nobody@example.com" }).catch((e) => e);
    expect(missing).toBeInstanceOf(ParleyError);
    expect(missing).toMatchObject({ status: 404, code: "CONTACT_NOT_FOUND" });
    expect(missing.requestId).toEqual(expect.any(String));
  });

  it("a structured error: status, code, message and requestId (also the x-request-id header)", async () => {
    const err = await parley.contacts.create({ phone: "415 555 0100" }).catch((e) => e);
    expect(err).toBeInstanceOf(ParleyError);
    expect(err).toMatchObject({ status: 400, code: "INVALID_PHONE" });
    expect(err.message).toMatch(/country code/i);
    expect(err.requestId).toMatch(/\S/);
  });

  it("lists: create, list, get, addContact (twice: added then not), contacts, removeContact", async () => {
    const list = await parley.lists.create({ name: "VIP" });
    const c = await parley.contacts.create({ email: "list-member@example.com" });
    expect(await parley.lists.addContact(list.id, c.id)).toMatchObject({
      success: true,
      listId: list.id,
      contactId: c.id,
      added: true,
    });
    expect((await parley.lists.addContact(list.id, c.id)).added).toBe(false);
    expect((await parley.lists.list()).data.map((l) => l.id)).toContain(list.id);
    expect((await parley.lists.get(list.id)).id).toBe(list.id);
    const members = await parley.lists.contacts(list.id, { limit: 10 });
    expect(members.data.map((m) => m.id)).toEqual([c.id]);
    const more = [];
    for (let i = 0; i < 4; i++) more.push(await parley.contacts.create({ email: `page-${i}@example.com` }));
    for (const m of more) await parley.lists.addContact(list.id, m.id);
    const all = [];
    for await (const m of parley.paginate((q) => parley.lists.contacts(list.id, q), { limit: 2 }))
      all.push(m.id);
    expect(all).toEqual([c.id, ...more.map((m) => m.id)].sort());
    for (const m of more) await parley.lists.removeContact(list.id, m.id);
    await parley.lists.removeContact(list.id, c.id);
    expect((await parley.lists.contacts(list.id)).data).toEqual([]);
    const several = await parley.lists.addContacts(list.id, [c.id, "ct_missing"]);
    expect(several).toMatchObject({ added: 1, alreadyMembers: 0, notFound: ["ct_missing"] });
    const err = await parley.lists.addContact("list_missing", c.id).catch((e) => e);
    expect(err).toMatchObject({ status: 404, code: "LIST_NOT_FOUND" });
    expect((await parley.lists.rename(list.id, "Renamed")).name).toBe("Renamed");
    expect(await parley.lists.delete(list.id)).toEqual({ success: true, listId: list.id });
    expect(await parley.lists.get(list.id).catch((e) => e)).toMatchObject({ status: 404 });
  });

  it("creates, lists, updates and deletes canned replies", async () => {
    const reply = await parley.cannedReplies.create({ shortcut: "hours", title: "Hours", body: "9 to 5" });
    expect(reply).toMatchObject({ shortcut: "hours", title: "Hours", body: "9 to 5" });
    const dup = await parley.cannedReplies
      .create({ shortcut: "hours", title: "x", body: "y" })
      .catch((e) => e);
    expect(dup).toMatchObject({ status: 409, code: "CANNED_REPLY_EXISTS" });
    expect((await parley.cannedReplies.list({ limit: 10 })).data.map((r) => r.id)).toEqual([reply.id]);
    expect((await parley.cannedReplies.update(reply.id, { body: "10 to 6" })).body).toBe("10 to 6");
    expect(await parley.cannedReplies.delete(reply.id)).toEqual({ success: true, cannedReplyId: reply.id });
  });

  it("imports contacts from a CSV and reads the rejected rows", async () => {
    const created = await parley.imports.create("Phone,Name\n+14155550177,Imp\n4155550178,Bad\n", {
      fileName: "sdk.csv",
    });
    expect(created).toMatchObject({ status: "running", total: 2 });
    let imp = await parley.imports.get(created.importId);
    for (let i = 0; i < 100 && imp.status === "running"; i++) {
      await new Promise((r) => setTimeout(r, 50));
      imp = await parley.imports.get(created.importId);
    }
    expect(imp).toMatchObject({ status: "done", created: 1, rejected: 1 });
    expect(await parley.imports.rejected(created.importId)).toMatch(
      /^Phone,Name,row,reason\n4155550178,Bad,2,/,
    );
  });

  it("exports contacts as CSV and conversations as JSON Lines, streamed", async () => {
    await parley.contacts.create({ email: "exported@example.com", firstName: "Ex" });
    const contacts = await parley.exports.contacts();
    expect(contacts.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(await contacts.text()).toMatch(
      /^id,firstName,[^\n]*\n(.*\n)*ct_[^,]+,Ex,,,exported@example\.com,/,
    );
    const conversations = await parley.exports.conversations({ format: "jsonl" });
    expect(conversations.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    for (const line of (await conversations.text()).split("\n").filter(Boolean)) {
      expect(JSON.parse(line)).toHaveProperty("messages");
    }
  });

  it("lists, labels and deletes contacts", async () => {
    const c = await parley.contacts.create({ email: "labelled@example.com", labels: ["sdk"] });
    const page = await parley.contacts.list({ label: "sdk" });
    expect(page.data.map((x) => x.id)).toEqual([c.id]);
    expect(await parley.contacts.bulk({ ids: [c.id], action: "label", label: "bulk" })).toEqual({
      updated: 1,
      notFound: [],
    });
    expect((await parley.contacts.get(c.id)).labels).toEqual(["sdk", "bulk"]);
    expect(await parley.contacts.delete(c.id)).toMatchObject({ success: true, contactId: c.id });
    expect((await parley.contacts.list({ label: "sdk" })).data).toEqual([]);
  });

  it("messages: incoming (a repeat answers the original id), get, media, send, resend; conversations", async () => {
    const sid = `sid-${Date.now()}`;
    const first = await parley.messages.incoming({
      customData: {
        messageSid: sid,
        fromId: "user-42",
        toId: "shop",
        body: "Hello, a picture",
        channel: "livechat",
        mediaUrl: `data:image/png;base64,${PNG_1x1}`,
        mediaContentType: "image/png",
      },
    });
    expect(first).toMatchObject({ success: true, messageId: expect.any(String) });
    const repeat = await parley.messages.incoming({
      customData: { messageSid: sid, fromId: "user-42", toId: "shop", body: "Hello, a picture" },
    });
    expect(repeat.messageId).toBe(first.messageId);

    const m = await parley.messages.get(first.messageId);
    expect(m).toMatchObject({ id: first.messageId, body: "Hello, a picture" });
    const media = await waitFor(
      () => parley.messages.media(first.messageId).catch(() => null),
      "the attachment to be stored",
    );
    expect(media.contentType).toBe("image/png");
    expect(Buffer.from(media.data).toString("base64")).toBe(PNG_1x1);

    // The reply delivery fails first (receiver 500), so it can be resent.
    receiver.setHandler(() => 500);
    const sent = await parley.messages.send({
      customData: { fromId: "user-42", customChannel: "livechat", body: "Thanks!" },
    });
    expect(sent).toMatchObject({
      success: true,
      messageId: expect.any(String),
      contactId: expect.any(String),
    });
    await waitFor(
      async () => (await parley.messages.get(sent.messageId)).status === "failed",
      "the delivery to fail",
    );
    receiver.setHandler(() => 200);
    await parley.messages.resend(sent.messageId);
    await waitFor(async () => (await parley.messages.get(sent.messageId)).status === "sent", "the resend");

    const conversations = await parley.conversations.list({ contactId: sent.contactId });
    const conv = conversations.data[0]!;
    expect(conv).toBeDefined();
    expect((await parley.conversations.get(conv.id)).id).toBe(conv.id);
    const reply = await parley.conversations.reply(conv.id, { body: "A person answers" });
    expect(reply).toMatchObject({ id: expect.any(String), body: "A person answers" });
    await parley.conversations.setBot(conv.id, { active: false });
    expect(await parley.conversations.bulk({ ids: [conv.id], action: "resolve" })).toEqual({
      updated: 1,
      notFound: [],
    });
    const summary = await parley.conversations.summary(conv.id);
    expect(summary).toMatchObject({ conversationId: conv.id, engine: "builtin", summary: null });
    expect(await parley.conversations.functionCalls(conv.id)).toEqual({ data: [] });
    const history = await parley.contacts.messages(sent.contactId, { limit: 50 });
    expect(history.data.map((x) => x.id)).toEqual(expect.arrayContaining([first.messageId, sent.messageId]));
  });

  it("the simple error form of the incoming endpoint is a ParleyError too", async () => {
    const err = await parley.messages
      .incoming({ customData: { messageSid: "x", fromId: "a", toId: "b", body: "   " } })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ParleyError);
    expect(err.status).toBe(400);
    expect(err.code).toBe("VALIDATION_ERROR");
    expect(err.message).toMatch(/body/i);
    expect(err.requestId).toMatch(/\S/);
  });

  it("channels: create (a web widget with its snippet), list, get, update, delete; a bad config is a 400", async () => {
    const ch = await parley.channels.create({
      type: "web",
      name: "Website",
      config: { allowedOrigins: ["https://shop.example"] },
    });
    expect(ch).toMatchObject({ type: "web", name: "Website", status: "active", inboundUrl: null });
    expect(ch.embedSnippet).toContain(`data-channel="${ch.id}"`);
    expect((await parley.channels.list()).data.map((c) => c.id)).toContain(ch.id);
    expect((await parley.channels.get(ch.id)).config).toMatchObject({
      allowedOrigins: ["https://shop.example"],
    });
    const paused = await parley.channels.update(ch.id, { status: "paused", config: { color: "#0f766e" } });
    expect(paused).toMatchObject({ status: "paused", config: { color: "#0f766e" } });
    const bad = await parley.channels
      .create({ type: "web", name: "x", config: { allowedOrigins: ["https://shop.example/path"] } })
      .catch((e) => e);
    expect(bad).toMatchObject({ status: 400, code: "INVALID_CHANNEL_CONFIG" });
    expect(await parley.channels.delete(ch.id)).toEqual({ success: true, channelId: ch.id });
    expect(await parley.channels.get(ch.id).catch((e) => e)).toMatchObject({
      status: 404,
      code: "CHANNEL_NOT_FOUND",
    });
  });

  it("campaigns: create, list, get, update, delete", async () => {
    const c = await parley.campaigns.create({ name: "Spring sale", keywords: ["spring"] });
    expect(c.name).toBe("Spring sale");
    expect((await parley.campaigns.list()).data.map((x) => x.id)).toContain(c.id);
    expect((await parley.campaigns.get(c.id)).id).toBe(c.id);
    expect((await parley.campaigns.update(c.id, { name: "Summer sale" })).name).toBe("Summer sale");
    const list = await parley.lists.create({ name: "outgoing" });
    await parley.campaigns.update(c.id, { outgoing: { message: "Hi", listId: list.id, channel: "sms" } });
    expect(await parley.campaigns.start(c.id)).toMatchObject({ state: "running", members: 0 });
    // The list is empty: the server's worker may finish the campaign before the pause arrives.
    const paused = await parley.campaigns.pause(c.id);
    expect(["paused", "done"]).toContain(paused.state);
    // A pause that took is never undone by the finishing tick (its "done" is a compare-and-set).
    const stats = await parley.campaigns.stats(c.id);
    expect(stats.sent).toBe(0);
    if (paused.state === "paused") expect(stats.state).toBe("paused");
    const tried = await parley.campaigns.preview(c.id, "anything at all");
    expect(tried).toMatchObject({ outcome: "fallback", reason: "no_answer" });
    const withFunction = await parley.campaigns.update(c.id, {
      functions: [
        {
          name: "order_status",
          description: "Looks up an order by its number",
          parameters: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] },
          url: receiver.url,
        },
      ],
    });
    expect(withFunction.functions).toMatchObject([{ name: "order_status", timeoutMs: 5000 }]);
    const tested = await parley.campaigns.testFunction(c.id, "order_status", {
      arguments: { orderId: "1234" },
    });
    expect(tested).toMatchObject({ status: "ok", statusCode: 200 });
    const saved = await parley.campaigns.saveKnowledge(c.id, {
      question: "Is there a spring sale on helmets?",
      answer: "Yes, 20 % off every helmet until May.",
    });
    expect(saved).toMatchObject({ change: "entry_created", entry: { index: 0 }, knowledgeCount: 1 });
    expect(
      await parley.campaigns.saveKnowledge(c.id, { question: "helmets on sale this spring?", entryIndex: 0 }),
    ).toMatchObject({
      change: "alternative_added",
      entry: { alternatives: ["helmets on sale this spring?"] },
    });
    await parley.campaigns.delete(c.id);
    const gone = await parley.campaigns.get(c.id).catch((e) => e);
    expect(gone).toMatchObject({ status: 404 });
  });

  it("campaigns.suggestPhrasings: the account's LLM (a local stand-in) proposes other ways to ask", async () => {
    // An account of its own with an LLM, so the other tests' campaigns keep the offline engine.
    const stub = await startLlmStub();
    try {
      stub.respond = () => ({ content: JSON.stringify(["when do you open", "opening times?"]) });
      const email = uniqueEmail("llm");
      const acc = await s.t.account({ email });
      await s.setAccount(email, {
        "llm-base-url": stub.baseUrl,
        "llm-api-key": "sdk-test-key",
        "llm-model": "sdk-test-model",
      });
      const withLlm = s.client(acc.apiKey, { fetch: recordingFetch });
      const c = await withLlm.campaigns.create({
        name: "Hours",
        knowledge: [{ question: "What are your opening hours?", answer: "9 to 5." }],
      });
      expect(await withLlm.campaigns.suggestPhrasings(c.id, 0)).toEqual({
        entry: { index: 0, question: "What are your opening hours?" },
        phrasings: ["when do you open", "opening times?"],
      });
      expect(stub.requests).toHaveLength(1);
    } finally {
      await stub.close();
    }
  });

  it("sources: create, list, get, update, resync, delete", async () => {
    const c = await parley.campaigns.create({ name: "Knowledge" });
    const s = await parley.sources.create(c.id, {
      type: "file",
      name: "hours.md",
      contentType: "text/markdown",
      data: Buffer.from("# Hours\n\nOpen 9 to 5.").toString("base64"),
    });
    expect(s).toMatchObject({ type: "file", name: "hours.md", status: "processing" });
    expect((await parley.sources.list(c.id)).data.map((x) => x.id)).toEqual([s.id]);
    expect((await parley.sources.get(c.id, s.id)).id).toBe(s.id);
    const page = await parley.sources.create(c.id, { type: "url", url: `${receiver.url}/page` });
    expect((await parley.sources.update(c.id, page.id, { dailyResync: true })).dailyResync).toBe(true);
    expect((await parley.sources.resync(c.id, s.id)).status).toBe("processing");
    expect(await parley.sources.delete(c.id, s.id)).toEqual({ success: true, sourceId: s.id });
    const gone = await parley.sources.get(c.id, s.id).catch((e) => e);
    expect(gone).toMatchObject({ status: 404, code: "SOURCE_NOT_FOUND" });
    await parley.campaigns.delete(c.id);
  });

  it("campaigns: skipped lists a member the outgoing side could not reach, with its reason", async () => {
    const c = await parley.campaigns.create({ name: "Reach test" });
    const list = await parley.lists.create({ name: "no identity" });
    // Created through the API with an e-mail only: no fromId on any channel, so it cannot be sent to.
    const member = await parley.contacts.create({ email: "unreachable@example.com" });
    await parley.lists.addContact(list.id, member.id);
    await parley.campaigns.update(c.id, { outgoing: { message: "Hi", listId: list.id, channel: "sms" } });
    expect(await parley.campaigns.start(c.id)).toMatchObject({ members: 1 });
    let skipped = await parley.campaigns.skipped(c.id);
    for (let i = 0; i < 100 && skipped.data.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      skipped = await parley.campaigns.skipped(c.id);
    }
    expect(skipped.data).toEqual([
      expect.objectContaining({ contactId: member.id, reason: "no_custom_channel_id" }),
    ]);
  });

  it("subaccounts: create, list, get, grantCredits (header key, Idempotency-Key replay), auto-recharge, transactions", async () => {
    const email = uniqueEmail("sub");
    const sub = await agency.subaccounts.create({ email, name: "Shop" });
    expect(sub.email).toBe(email);
    expect((await agency.subaccounts.list()).data.map((x) => x.id)).toContain(sub.id);
    expect((await agency.subaccounts.get(sub.id)).id).toBe(sub.id);

    const g1 = await agency.subaccounts.grantCredits(
      { email, amount: 12.5, description: "welcome" },
      { idempotencyKey: "grant-1" },
    );
    expect(g1).toMatchObject({ success: true, sub_account_id: sub.id, credits_added: 12.5 });
    const g2 = await agency.subaccounts.grantCredits(
      { email, amount: 12.5, description: "welcome" },
      { idempotencyKey: "grant-1" },
    );
    expect(g2.new_balance).toBe(g1.new_balance);

    await agency.subaccounts.setAutoRecharge(sub.id, { threshold: 5, rechargeAmount: 20 });
    expect((await agency.subaccounts.get(sub.id)).autoRecharge).toMatchObject({ threshold: 5 });
    await agency.subaccounts.clearAutoRecharge(sub.id);
    const tx = await agency.subaccounts.transactions(sub.id, { limit: 10 });
    expect(tx.data).toHaveLength(1);
    expect(tx.data[0]).toMatchObject({ kind: "grant", amount: 12.5, description: "welcome" });
    const usage = await agency.subaccounts.usage(sub.id, { days: 7 });
    expect(usage.days).toHaveLength(7);
    expect(usage.totals).toMatchObject({ messagesIn: 0, creditsUsed: 0, deliverySuccessRate: null });
    const usageCsv = await agency.subaccounts.usageCsv(sub.id, { days: 2 });
    expect((await usageCsv.text()).split("\n")[0]).toBe(
      "date,messages_in,messages_out,bot_replies,credits_used,deliveries_succeeded,deliveries_failed",
    );
    expect((await agency.credits.transactions()).data).toEqual(expect.any(Array));

    const notAgency = await parley.subaccounts.grantCredits({ email, amount: 1 }).catch((e) => e);
    expect(notAgency).toMatchObject({ status: 403, code: "NOT_AGENCY" });

    expect(await agency.subaccounts.suspend(sub.id)).toMatchObject({ status: "suspended" });
    const refused = await s
      .client(sub.apiKey)
      .account.get()
      .catch((e) => e);
    expect(refused).toMatchObject({ status: 403, code: "ACCOUNT_SUSPENDED" });
    expect(await agency.subaccounts.resume(sub.id)).toMatchObject({ status: "active", suspendedAt: null });
  });

  it("keyIn query sends ?apiKey= (the spec's form) except for the credits grant, which always uses the header", async () => {
    const acc = await s.t.account({ email: uniqueEmail("q"), kind: "agency" });
    const urls: Array<{ url: string; key: string | null }> = [];
    const q = s.client(acc.apiKey, {
      keyIn: "query",
      fetch: async (input, init) => {
        urls.push({ url: String(input), key: new Headers(init?.headers).get("x-api-key") });
        return fetch(input, init);
      },
    });
    await q.lists.list();
    const email = uniqueEmail("qsub");
    await q.subaccounts.create({ email });
    await q.subaccounts.grantCredits({ email, amount: 1 });
    expect(urls[0]!.url).toContain(`apiKey=${acc.apiKey}`);
    expect(urls[0]!.key).toBeNull();
    expect(urls[2]!.url).not.toContain("apiKey");
    expect(urls[2]!.key).toBe(acc.apiKey);
    // The default (header) never puts the key in a URL.
    expect(seenUrls.some((u) => u.includes("apiKey"))).toBe(false);
  });

  it("a wrong key is a 401 ParleyError", async () => {
    const err = await s
      .client("pk_live_wrong")
      .contacts.get("c_1")
      .catch((e) => e);
    expect(err).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
  });

  it("every operation in OPERATIONS was called successfully above", () => {
    const missing = Object.keys(OPERATIONS).filter((id) => !called.has(id as OperationId));
    expect(missing).toEqual([]);
  });
});
