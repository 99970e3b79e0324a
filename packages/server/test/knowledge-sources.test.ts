// Knowledge sources (issue 34): files (PDF, DOCX, Markdown), a web page and a sitemap served by a local
// HTTP server are read in the background into passages the builtin bot answers from ("Try it" names
// the source); re-sync picks up a change; delete stops the bot using them at once; a 404 page, a wrong
// file, a too big one and a private address end as clear errors, never a 500.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedAccount } from "../src/modules/accounts/service.ts";
import { topPassages } from "../src/modules/bot/engine-builtin.ts";
import { PASSAGE_MAX_CHARS, toPassages } from "../src/modules/knowledge/extract.ts";
import { sitemapLocs } from "../src/modules/knowledge/fetch.ts";
import { ownerBrowser, teammate } from "./app-helpers.ts";
import { docxOf, PNG_BYTES, pdfOf } from "./fixtures/knowledge.ts";
import {
  callWithKey,
  drainUntil,
  errorCode,
  json,
  type Page,
  startTestApp,
  type TestApp,
} from "./helpers.ts";
import { startLlmStub, textOf } from "./llm-stub.ts";

interface Source {
  id: string;
  campaignId: string;
  type: "file" | "url" | "sitemap";
  name: string;
  url: string | null;
  contentType: string | null;
  status: "processing" | "ready" | "error";
  error: string | null;
  passages: number;
  bytes: number;
  dailyResync: boolean;
  lastSyncedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

interface Preview {
  outcome: "answer" | "fallback" | "handover";
  reply: string;
  entry: { index: number; question: string | null } | null;
  source?: { id: string; name: string; passage: string } | null;
}

const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

/** The local site: pages by path, changeable by the test. */
const pages = new Map<string, { type: string; body: string; status?: number }>();
let server: http.Server;
let base: string;

describe("knowledge sources", () => {
  let t: TestApp;
  let acc: CreatedAccount;
  let campaignId: string;

  const api = (method: "GET" | "POST" | "PATCH" | "DELETE", path: string, body?: unknown) =>
    callWithKey(t, method, `/v1/campaigns/${campaignId}${path}`, acc.apiKey, body);

  const add = async (body: unknown): Promise<Source> => {
    const res = await api("POST", "/sources", body);
    expect(res.statusCode, res.body).toBe(201);
    const source = json<Source>(res);
    expect(source.status).toBe("processing");
    return source;
  };

  /** Runs the jobs until the source is no longer processing. */
  const settled = async (id: string): Promise<Source> => {
    let source: Source | undefined;
    await drainUntil(t, async () => {
      source = json<Source>(await api("GET", `/sources/${id}`));
      return source.status !== "processing";
    });
    return source!;
  };

  const ask = async (message: string) => json<Preview>(await api("POST", "/preview", { message }));

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const page = pages.get(req.url ?? "");
      if (!page) {
        res.writeHead(404, { "content-type": "text/plain" }).end("not found");
        return;
      }
      res.writeHead(page.status ?? 200, { "content-type": page.type }).end(page.body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await startTestApp();
    acc = await t.account();
    const created = await callWithKey(t, "POST", "/v1/campaigns", acc.apiKey, {
      name: "Bike shop",
      status: "draft",
      engine: "builtin",
      knowledge: [{ question: "Do you sell gift vouchers?", answer: "Yes, in the shop." }],
    });
    expect(created.statusCode, created.body).toBe(201);
    campaignId = json<{ id: string }>(created).id;
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it("reads a PDF, a DOCX and a Markdown file into passages the bot answers from", async () => {
    const pdf = await add({
      type: "file",
      name: "returns.pdf",
      contentType: "application/pdf",
      data: pdfOf([
        "Returns policy",
        "You can return a bicycle within 30 days of purchase for a full refund.",
      ]).toString("base64"),
    });
    const docx = await add({
      type: "file",
      name: "warranty.docx",
      contentType: DOCX,
      data: (
        await docxOf(["# Warranty", "Every frame has a lifetime warranty against manufacturing defects."])
      ).toString("base64"),
    });
    const md = await add({
      type: "file",
      name: "parking.md",
      contentType: "text/markdown",
      data: Buffer.from("# Parking\n\nFree **parking** for customers is behind the workshop.\n").toString(
        "base64",
      ),
    });
    for (const s of [pdf, docx, md]) {
      const ready = await settled(s.id);
      expect(ready, JSON.stringify(ready)).toMatchObject({ status: "ready", error: null, type: "file" });
      expect(ready.passages).toBeGreaterThan(0);
      expect(ready.bytes).toBeGreaterThan(0);
      expect(ready.lastSyncedAt).not.toBeNull();
    }

    const warranty = await ask("Is there a warranty on the frame?");
    expect(warranty).toMatchObject({ outcome: "answer", entry: null });
    expect(warranty.reply).toContain("lifetime warranty");
    expect(warranty.source).toMatchObject({ id: docx.id, name: "warranty.docx" });
    expect(warranty.source?.passage).toContain("lifetime warranty");

    const refund = await ask("can I return a bicycle for a refund?");
    expect(refund.outcome).toBe("answer");
    expect(refund.source?.id).toBe(pdf.id);
    expect(refund.reply).toContain("30 days");

    const parking = await ask("where can I park?");
    expect(parking.source?.id).toBe(md.id);

    // The campaign's own knowledge still answers, naming its entry and no source.
    const own = await ask("do you sell gift vouchers?");
    expect(own).toMatchObject({ outcome: "answer", entry: { index: 0 }, source: null });

    const list = json<Page<Source>>(await api("GET", "/sources"));
    expect(list.data.map((s) => s.id)).toEqual([md.id, docx.id, pdf.id]);
    expect(list.hasMore).toBe(false);
  });

  it("reads a web page, re-syncs a change, and stops answering from a deleted source at once", async () => {
    pages.set("/delivery", {
      type: "text/html; charset=utf-8",
      body:
        "<html><head><title>Delivery | Bike shop</title></head><body><nav>Home Shop Contact</nav>" +
        "<h1>Delivery</h1><p>We deliver every bicycle within three working days, assembled.</p></body></html>",
    });
    const page = await add({ type: "url", url: `${base}/delivery`, dailyResync: true });
    expect(page).toMatchObject({
      type: "url",
      url: `${base}/delivery`,
      dailyResync: true,
      contentType: null,
    });
    const ready = await settled(page.id);
    expect(ready).toMatchObject({ status: "ready", name: "Delivery | Bike shop" });
    let answer = await ask("do you deliver bicycles?");
    expect(answer.source?.id).toBe(page.id);
    expect(answer.reply).toContain("three working days");

    pages.set("/delivery", {
      type: "text/html",
      body: "<html><body><h1>Delivery</h1><p>We deliver every bicycle within five working days.</p></body></html>",
    });
    const again = await api("POST", `/sources/${page.id}/resync`);
    expect(again.statusCode, again.body).toBe(202);
    expect(json<Source>(again).status).toBe("processing");
    expect((await settled(page.id)).status).toBe("ready");
    answer = await ask("do you deliver bicycles?");
    expect(answer.reply).toContain("five working days");

    const patched = await api("PATCH", `/sources/${page.id}`, { dailyResync: false });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(json<Source>(patched).dailyResync).toBe(false);

    const deleted = await api("DELETE", `/sources/${page.id}`);
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(json(deleted)).toEqual({ success: true, sourceId: page.id });
    const rows = await t.parley.db.kysely
      .selectFrom("knowledge_passages")
      .select("text")
      .where("source_id", "=", page.id)
      .execute();
    expect(rows).toEqual([]);
    answer = await ask("do you deliver bicycles?");
    expect(answer.source?.id).not.toBe(page.id);
    expect(answer.reply).not.toContain("working days");
    expect((await api("GET", `/sources/${page.id}`)).statusCode).toBe(404);
    expect(errorCode(await api("GET", `/sources/${page.id}`))).toBe("SOURCE_NOT_FOUND");
  });

  it("reads a sitemap's pages (and a sitemap index one level), up to maxPages", async () => {
    const urlset = (paths: string[]) =>
      `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths
        .map((p) => `<url><loc>${base}${p}</loc></url>`)
        .join("")}</urlset>`;
    pages.set("/sitemap.xml", { type: "application/xml", body: urlset(["/rent", "/repair", "/missing"]) });
    pages.set("/rent", {
      type: "text/html",
      body: "<html><body><h2>Rentals</h2><p>Electric bikes can be rented for 40 euros a day.</p></body></html>",
    });
    pages.set("/repair", {
      type: "text/html",
      body: "<html><body><h2>Workshop</h2><p>Puncture repairs are done while you wait.</p></body></html>",
    });
    const map = await add({ type: "sitemap", url: `${base}/sitemap.xml`, maxPages: 2 });
    expect(map.dailyResync).toBe(false);
    const ready = await settled(map.id);
    expect(ready).toMatchObject({ status: "ready", passages: 2 });
    expect((await ask("can I rent an electric bike?")).source?.id).toBe(map.id);

    pages.set("/index.xml", {
      type: "application/xml",
      body: `<sitemapindex><sitemap><loc>${base}/sitemap.xml</loc></sitemap></sitemapindex>`,
    });
    const index = await add({ type: "sitemap", url: `${base}/index.xml` });
    const indexed = await settled(index.id);
    // /missing answers 404 and is skipped; the two others are read.
    expect(indexed).toMatchObject({ status: "ready", passages: 2 });
  });

  it("ends in a clear error: a 404 page, a private address, a page without text", async () => {
    const missing = await settled((await add({ type: "url", url: `${base}/nowhere` })).id);
    expect(missing).toMatchObject({ status: "error", passages: 0, error: "the page answered 404" });

    pages.set("/empty", { type: "text/html", body: "<html><body><nav>Home</nav></body></html>" });
    const empty = await settled((await add({ type: "url", url: `${base}/empty` })).id);
    expect(empty).toMatchObject({ status: "error", error: "no text found on the page" });

    pages.set("/image", { type: "image/png", body: "png" });
    const image = await settled((await add({ type: "url", url: `${base}/image` })).id);
    expect(image.error).toContain("image/png");

    // The same server, on an app that does not allow loopback addresses.
    const strict = await startTestApp({ OUTBOUND_ALLOW_CIDRS: "" });
    try {
      const other = await strict.account();
      const campaigns = json<Page<{ id: string }>>(
        await callWithKey(strict, "GET", "/v1/campaigns", other.apiKey),
      );
      const cid = campaigns.data[0]!.id;
      const res = await callWithKey(strict, "POST", `/v1/campaigns/${cid}/sources`, other.apiKey, {
        type: "url",
        url: `${base}/delivery`,
      });
      expect(res.statusCode, res.body).toBe(201);
      const id = json<Source>(res).id;
      let source: Source | undefined;
      await drainUntil(strict, async () => {
        source = json<Source>(
          await callWithKey(strict, "GET", `/v1/campaigns/${cid}/sources/${id}`, other.apiKey),
        );
        return source.status !== "processing";
      });
      expect(source?.status).toBe("error");
      expect(source?.error).toContain("private or local");
    } finally {
      await strict.close();
    }
  });

  it("refuses a wrong file type (415), a file over 20 MB (413), missing fields (400), an unknown campaign (404)", async () => {
    const png = await api("POST", "/sources", {
      type: "file",
      name: "handbook.pdf",
      contentType: "application/pdf",
      data: PNG_BYTES.toString("base64"),
    });
    expect(png.statusCode, png.body).toBe(415);
    expect(errorCode(png)).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect(json<{ error: { message: string } }>(png).error.message).toContain("not a PDF");

    const binaryText = await api("POST", "/sources", {
      type: "file",
      name: "notes.txt",
      contentType: "text/plain",
      data: PNG_BYTES.toString("base64"),
    });
    expect(binaryText.statusCode).toBe(415);

    const big = await api("POST", "/sources", {
      type: "file",
      name: "big.txt",
      contentType: "text/plain",
      data: Buffer.alloc(20 * 1024 * 1024 + 10, "a").toString("base64"),
    });
    expect(big.statusCode, big.body.slice(0, 200)).toBe(413);
    expect(errorCode(big)).toBe("PAYLOAD_TOO_LARGE");

    const noUrl = await api("POST", "/sources", { type: "url" });
    expect(noUrl.statusCode).toBe(400);
    expect(json<{ error: { message: string } }>(noUrl).error.message).toContain("url");
    const ftp = await api("POST", "/sources", { type: "url", url: "ftp://example.com/x" });
    expect(ftp.statusCode).toBe(400);
    const pages = await api("POST", "/sources", { type: "sitemap", url: `${base}/s.xml`, maxPages: 500 });
    expect(pages.statusCode).toBe(400);
    const fileResync = await api("POST", "/sources", {
      type: "file",
      name: "a.txt",
      contentType: "text/plain",
      data: Buffer.from("Hello there.").toString("base64"),
      dailyResync: true,
    });
    expect(fileResync.statusCode).toBe(400);

    const unknown = await callWithKey(t, "GET", "/v1/campaigns/cmp_nope/sources", acc.apiKey);
    expect(unknown.statusCode).toBe(404);
    expect(errorCode(unknown)).toBe("CAMPAIGN_NOT_FOUND");
    expect(errorCode(await api("GET", "/sources/ks_nope"))).toBe("SOURCE_NOT_FOUND");
  });

  it("re-reads a stored file on re-sync, and the daily re-sync fetches due pages again", async () => {
    const file = await add({
      type: "file",
      name: "hours.txt",
      contentType: "text/plain",
      data: Buffer.from("The workshop opens at eight on Saturdays.").toString("base64"),
    });
    expect((await settled(file.id)).passages).toBe(1);
    expect((await api("POST", `/sources/${file.id}/resync`)).statusCode).toBe(202);
    expect(await settled(file.id)).toMatchObject({ status: "ready", passages: 1 });
    expect((await api("PATCH", `/sources/${file.id}`, { dailyResync: true })).statusCode).toBe(400);

    pages.set("/news", {
      type: "text/html",
      body: "<html><body><p>Spring sale on helmets this week.</p></body></html>",
    });
    const news = await add({ type: "url", url: `${base}/news`, dailyResync: true });
    await settled(news.id);
    pages.set("/news", {
      type: "text/html",
      body: "<html><body><p>Summer sale on saddles this week.</p></body></html>",
    });
    // A day later: the daily job finds it due and fetches it again.
    await t.parley.db.kysely
      .updateTable("knowledge_sources")
      .set({ next_sync_at: Date.now() - 1000 })
      .where("id", "=", news.id)
      .execute();
    await t.parley.worker.queueRecurring();
    await t.parley.db.kysely
      .updateTable("jobs")
      .set({ run_at: Date.now() })
      .where("type", "=", "knowledge.daily-resync")
      .execute();
    await drainUntil(t, async () => (await ask("is there a sale on saddles?")).source?.id === news.id);
    const after = json<Source>(await api("GET", `/sources/${news.id}`));
    expect(after.status).toBe("ready");
  });

  it("serves the same under /app/api: every role reads, owners and admins write", async () => {
    const { browser: owner } = await ownerBrowser(t);
    const campaigns = json<Page<{ id: string }>>(
      await owner.req({ method: "GET", url: "/app/api/campaigns" }),
    );
    const cid = campaigns.data[0]!.id;
    const created = await owner.req({
      method: "POST",
      url: `/app/api/campaigns/${cid}/sources`,
      payload: {
        type: "file",
        name: "faq.md",
        contentType: "text/markdown",
        data: Buffer.from("# Lights\n\nFront and rear lights are included with every city bike.").toString(
          "base64",
        ),
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = json<Source>(created).id;
    const agent = await teammate(t, owner, "agent");
    const listed = await agent.req({ method: "GET", url: `/app/api/campaigns/${cid}/sources` });
    expect(json<Page<Source>>(listed).data.map((s) => s.id)).toEqual([id]);
    expect(
      (await agent.req({ method: "GET", url: `/app/api/campaigns/${cid}/sources/${id}` })).statusCode,
    ).toBe(200);
    for (const [method, url] of [
      ["POST", `/app/api/campaigns/${cid}/sources/${id}/resync`],
      ["DELETE", `/app/api/campaigns/${cid}/sources/${id}`],
    ] as const) {
      expect((await agent.req({ method, url })).statusCode, url).toBe(403);
    }
    // Another account's owner: its campaign and source are not found.
    const stranger = (await ownerBrowser(t)).browser;
    for (const url of [`/app/api/campaigns/${cid}/sources`, `/app/api/campaigns/${cid}/sources/${id}`]) {
      expect((await stranger.req({ method: "GET", url })).statusCode, url).toBe(404);
    }
    const theirs = json<Page<{ id: string }>>(
      await stranger.req({ method: "GET", url: "/app/api/campaigns" }),
    );
    const foreign = await stranger.req({
      method: "DELETE",
      url: `/app/api/campaigns/${theirs.data[0]!.id}/sources/${id}`,
    });
    expect(foreign.statusCode).toBe(404);
    expect(errorCode(foreign)).toBe("SOURCE_NOT_FOUND");
    expect(
      (await owner.req({ method: "POST", url: `/app/api/campaigns/${cid}/sources/${id}/resync` })).statusCode,
    ).toBe(202);
    expect(
      (await owner.req({ method: "DELETE", url: `/app/api/campaigns/${cid}/sources/${id}` })).statusCode,
    ).toBe(200);
  });

  it("answers a real incoming message from a source's passage (the default campaign, builtin engine)", async () => {
    const other = await t.account({ credits: 10 });
    const campaigns = json<Page<{ id: string; isDefault: boolean }>>(
      await callWithKey(t, "GET", "/v1/campaigns", other.apiKey),
    );
    const cid = campaigns.data.find((c) => c.isDefault)!.id;
    const res = await callWithKey(t, "POST", `/v1/campaigns/${cid}/sources`, other.apiKey, {
      type: "file",
      name: "tyres.txt",
      contentType: "text/plain",
      data: Buffer.from("Tubeless tyres are fitted in the workshop for 25 euros per wheel.").toString(
        "base64",
      ),
    });
    const id = json<Source>(res).id;
    await drainUntil(t, async () => {
      const s = json<Source>(await callWithKey(t, "GET", `/v1/campaigns/${cid}/sources/${id}`, other.apiKey));
      return s.status === "ready";
    });
    const incoming = await callWithKey(t, "POST", "/v1/incoming_custom_channel_message", other.apiKey, {
      customData: {
        messageSid: `sid-${Date.now()}`,
        fromId: "rider-1",
        toId: "shop",
        channel: "webchat",
        body: "do you fit tubeless tyres?",
      },
    });
    expect(incoming.statusCode, incoming.body).toBe(200);
    let reply: { body: string } | undefined;
    await drainUntil(t, async () => {
      reply = await t.parley.db.kysely
        .selectFrom("messages")
        .select("body")
        .where("account_id", "=", other.accountId)
        .where("sender", "=", "bot")
        .executeTakeFirst();
      return reply !== undefined;
    });
    expect(reply?.body).toContain("25 euros per wheel");
  });

  it("gives the LLM engine the best passages, whole, in its prompt", async () => {
    const stub = await startLlmStub();
    const llm = await startTestApp({ LLM_BASE_URL: stub.baseUrl, LLM_API_KEY: "k", LLM_MODEL: "m" });
    try {
      const other = await llm.account();
      const created = await callWithKey(llm, "POST", "/v1/campaigns", other.apiKey, {
        name: "LLM",
        status: "draft",
        engine: "llm",
      });
      const cid = json<{ id: string }>(created).id;
      const res = await callWithKey(llm, "POST", `/v1/campaigns/${cid}/sources`, other.apiKey, {
        type: "file",
        name: "saddles.md",
        contentType: "text/markdown",
        data: Buffer.from(
          "# Saddles\n\nEvery saddle can be tried for two weeks. Gel covers cost 12 euros.",
        ).toString("base64"),
      });
      const id = json<Source>(res).id;
      await drainUntil(llm, async () => {
        const got = await callWithKey(llm, "GET", `/v1/campaigns/${cid}/sources/${id}`, other.apiKey);
        return json<Source>(got).status === "ready";
      });
      stub.respond = () => ({ content: "You can try it for two weeks." });
      const preview = await callWithKey(llm, "POST", `/v1/campaigns/${cid}/preview`, other.apiKey, {
        message: "can I try a saddle first?",
      });
      expect(json<Preview>(preview)).toMatchObject({
        outcome: "answer",
        reply: "You can try it for two weeks.",
      });
      const prompt = stub.requests[0]!.body.messages.map((m) => textOf(m.content)).join("\n");
      expect(prompt).toContain("Saddles: Every saddle can be tried for two weeks. Gel covers cost 12 euros.");
    } finally {
      await llm.close();
      await stub.close();
    }
  });

  it("deletes a campaign's sources and passages with the campaign", async () => {
    const created = await callWithKey(t, "POST", "/v1/campaigns", acc.apiKey, {
      name: "Temp",
      status: "draft",
    });
    const cid = json<{ id: string }>(created).id;
    const res = await callWithKey(t, "POST", `/v1/campaigns/${cid}/sources`, acc.apiKey, {
      type: "file",
      name: "x.txt",
      contentType: "text/plain",
      data: Buffer.from("Something to know.").toString("base64"),
    });
    const id = json<Source>(res).id;
    await drainUntil(t, async () => {
      const s = json<Source>(await callWithKey(t, "GET", `/v1/campaigns/${cid}/sources/${id}`, acc.apiKey));
      return s.status === "ready";
    });
    expect((await callWithKey(t, "DELETE", `/v1/campaigns/${cid}`, acc.apiKey)).statusCode).toBe(200);
    const left = await t.parley.db.kysely
      .selectFrom("knowledge_passages")
      .select("text")
      .where("campaign_id", "=", cid)
      .execute();
    expect(left).toEqual([]);
  });
});

describe("knowledge extraction", () => {
  it("splits on headings and paragraphs, cuts a long paragraph between sentences", () => {
    const sentence = "The frame is made of light aluminium and comes with a long warranty. ";
    const passages = toPassages([
      { kind: "heading", text: "Frames" },
      { kind: "text", text: sentence.repeat(40).trim() },
      { kind: "heading", text: "Wheels" },
      { kind: "text", text: "Short one." },
      { kind: "text", text: "Another short one." },
    ]);
    const frames = passages.filter((p) => p.heading === "Frames");
    expect(frames.length).toBeGreaterThan(2);
    for (const p of frames) expect(p.text.length).toBeLessThanOrEqual(PASSAGE_MAX_CHARS);
    expect(frames.every((p) => p.text.endsWith("."))).toBe(true);
    expect(passages.filter((p) => p.heading === "Wheels")).toEqual([
      { heading: "Wheels", text: "Short one. Another short one." },
    ]);
  });

  it("reads a sitemap's <loc> entries (CDATA, entities, no repeats) and knows an index", () => {
    const xml =
      "<urlset><url><loc> https://a.example/x?a=1&amp;b=2 </loc></url>" +
      "<url><loc><![CDATA[https://a.example/y]]></loc></url><url><loc>https://a.example/y</loc></url>" +
      "<url><loc>ftp://a.example/z</loc></url></urlset>";
    expect(sitemapLocs(xml)).toEqual({
      index: false,
      locs: ["https://a.example/x?a=1&b=2", "https://a.example/y"],
    });
    expect(
      sitemapLocs("<sitemapindex><sitemap><loc>https://a.example/s.xml</loc></sitemap></sitemapindex>"),
    ).toEqual({ index: true, locs: ["https://a.example/s.xml"] });
  });

  it("gives the LLM a source's passage whole, with its heading", () => {
    const entries = [
      { question: "Hours?", answer: "9 to 5." },
      {
        question: "Brakes",
        text: "Disc brakes are serviced in a day. Pads cost 15 euros.",
        source: { id: "ks_x", name: "brakes.md" },
      },
    ];
    expect(topPassages(entries, "how much are brake pads?", 3)).toEqual([
      { text: "Brakes: Disc brakes are serviced in a day. Pads cost 15 euros." },
    ]);
  });
});
