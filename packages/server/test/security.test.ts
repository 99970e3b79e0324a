// One route-security table (model: unkey's apps/api common tests): every route the app serves has a
// row, and the test fails naming any route without one, so a new route joins by adding a row. For
// each /v1 row: no key is 401; another tenant's ids are 404 (never 403); a list never shows another
// tenant's rows; an agency route refuses a sub-account's (or any non-agency's) key with 403 and
// another agency's sub-account with 404. Session routes (/app/api) refuse a request without a session.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorCode, startTestApp, type TestApp } from "./helpers.ts";
import { type Tenants, tenants } from "./tenants.ts";

type Row = {
  /** How the route is reached: an API key (tenant or agency routes), a session, or nothing. */
  auth: "key" | "agency" | "session" | "open" | "none";
  /** The path with another tenant's ids (b's for tenant routes, y's sub-account for agency routes). */
  foreign?: (w: Tenants) => string;
  /** A body the route accepts, so the id check is what answers. */
  body?: (w: Tenants) => unknown;
  /** A list: its answer, read with a's key (or x's), must hold none of b's (or y's) ids. */
  list?: (w: Tenants) => string;
};

const key: Row = { auth: "key" };
const TABLE: Record<string, Row> = {
  "GET /v1/account": { auth: "key" },
  "GET /v1/account/business-hours": key,
  "PUT /v1/account/business-hours": { auth: "key", body: () => ({ businessHours: null }) },
  "POST /v1/contacts": key,
  "GET /v1/contacts": {
    auth: "key",
    foreign: (w) => `/v1/contacts?phoneNumber=${encodeURIComponent(w.b.phone)}`,
  },
  "GET /v1/contacts/:contactId": { auth: "key", foreign: (w) => `/v1/contacts/${w.b.contactId}` },
  "PATCH /v1/contacts/:contactId": {
    auth: "key",
    foreign: (w) => `/v1/contacts/${w.b.contactId}`,
    body: () => ({ firstName: "Mallory" }),
  },
  "PUT /v1/contacts/:contactId": {
    auth: "key",
    foreign: (w) => `/v1/contacts/${w.b.contactId}`,
    body: () => ({ firstName: "Mallory" }),
  },
  "POST /v1/contacts/imports": key,
  "GET /v1/contacts/imports/:importId": {
    auth: "key",
    foreign: (w) => `/v1/contacts/imports/${w.b.importId}`,
  },
  "GET /v1/contacts/imports/:importId/rejected": {
    auth: "key",
    foreign: (w) => `/v1/contacts/imports/${w.b.importId}/rejected`,
  },
  "DELETE /v1/contacts/:contactId": { auth: "key", foreign: (w) => `/v1/contacts/${w.b.contactId}` },
  "GET /v1/contacts/:contactId/messages": {
    auth: "key",
    foreign: (w) => `/v1/contacts/${w.b.contactId}/messages`,
  },
  "GET /v1/exports/contacts": { auth: "key", list: () => "/v1/exports/contacts?format=jsonl" },
  "GET /v1/exports/conversations": { auth: "key", list: () => "/v1/exports/conversations?format=jsonl" },
  "POST /v1/canned-replies": key,
  "GET /v1/canned-replies": { auth: "key", list: () => "/v1/canned-replies" },
  "PATCH /v1/canned-replies/:cannedReplyId": {
    auth: "key",
    foreign: (w) => `/v1/canned-replies/${w.b.cannedReplyId}`,
    body: () => ({ title: "taken over" }),
  },
  "DELETE /v1/canned-replies/:cannedReplyId": {
    auth: "key",
    foreign: (w) => `/v1/canned-replies/${w.b.cannedReplyId}`,
  },
  // Bulk: another tenant's ids in the body are reported in notFound and left alone (test/bulk.test.ts).
  "POST /v1/contacts/bulk": key,
  "POST /v1/conversations/bulk": key,
  "POST /v1/lists/:listId/contacts/bulk": {
    auth: "key",
    foreign: (w) => `/v1/lists/${w.b.listId}/contacts/bulk`,
    body: (w) => ({ contactIds: [w.b.contactId] }),
  },
  "POST /v1/lists": key,
  "GET /v1/lists": { auth: "key", list: () => "/v1/lists" },
  "GET /v1/lists/:listId": { auth: "key", foreign: (w) => `/v1/lists/${w.b.listId}` },
  "PATCH /v1/lists/:listId": {
    auth: "key",
    foreign: (w) => `/v1/lists/${w.b.listId}`,
    body: () => ({ name: "taken over" }),
  },
  "DELETE /v1/lists/:listId": { auth: "key", foreign: (w) => `/v1/lists/${w.b.listId}` },
  "POST /v1/lists/:listId/contacts": {
    auth: "key",
    foreign: (w) => `/v1/lists/${w.b.listId}/contacts`,
    body: (w) => ({ contactId: w.a.contactId }),
  },
  "GET /v1/lists/:listId/contacts": { auth: "key", foreign: (w) => `/v1/lists/${w.b.listId}/contacts` },
  "DELETE /v1/lists/:listId/contacts/:contactId": {
    auth: "key",
    foreign: (w) => `/v1/lists/${w.b.listId}/contacts/${w.b.contactId}`,
  },
  "POST /v1/incoming_custom_channel_message": key,
  "POST /v1/incoming-custom-channel-message": key,
  "GET /v1/incoming_custom_channel_message": { auth: "none" },
  "PUT /v1/incoming_custom_channel_message": { auth: "none" },
  "DELETE /v1/incoming_custom_channel_message": { auth: "none" },
  "PATCH /v1/incoming_custom_channel_message": { auth: "none" },
  "OPTIONS /v1/incoming_custom_channel_message": { auth: "none" },
  "GET /v1/incoming-custom-channel-message": { auth: "none" },
  "PUT /v1/incoming-custom-channel-message": { auth: "none" },
  "DELETE /v1/incoming-custom-channel-message": { auth: "none" },
  "PATCH /v1/incoming-custom-channel-message": { auth: "none" },
  "OPTIONS /v1/incoming-custom-channel-message": { auth: "none" },
  "POST /v1/send_custom_channel_message": key,
  "POST /v1/send-custom-channel-message": key,
  "GET /v1/messages/:messageId": { auth: "key", foreign: (w) => `/v1/messages/${w.b.inboundMessageId}` },
  "GET /v1/messages/:messageId/media": {
    auth: "key",
    foreign: (w) => `/v1/messages/${w.b.inboundMessageId}/media`,
  },
  // A signed media link (a person's attachment, for the webhook receiver and providers): the link is
  // the credential; test/app-reply-attachments.test.ts checks foreign, tampered and expired links.
  "GET /v1/media/:messageId": { auth: "none" },
  "POST /v1/messages/:messageId/resend": {
    auth: "key",
    foreign: (w) => `/v1/messages/${w.b.outboundMessageId}/resend`,
  },
  "POST /v1/conversations/:conversationId/messages": {
    auth: "key",
    foreign: (w) => `/v1/conversations/${w.b.conversationId}/messages`,
    body: () => ({ body: "hello from another tenant" }),
  },
  "GET /v1/conversations": { auth: "key", list: () => "/v1/conversations" },
  "GET /v1/conversations/:conversationId": {
    auth: "key",
    foreign: (w) => `/v1/conversations/${w.b.conversationId}`,
  },
  "POST /v1/conversations/:conversationId/bot": {
    auth: "key",
    foreign: (w) => `/v1/conversations/${w.b.conversationId}/bot`,
    body: () => ({ active: false }),
  },
  "GET /v1/conversations/:conversationId/function-calls": {
    auth: "key",
    foreign: (w) => `/v1/conversations/${w.b.conversationId}/function-calls`,
  },
  "GET /v1/conversations/:conversationId/summary": {
    auth: "key",
    foreign: (w) => `/v1/conversations/${w.b.conversationId}/summary`,
  },
  "POST /v1/campaigns": key,
  "GET /v1/campaigns": { auth: "key", list: () => "/v1/campaigns" },
  "GET /v1/campaigns/:campaignId": { auth: "key", foreign: (w) => `/v1/campaigns/${w.b.campaignId}` },
  "PATCH /v1/campaigns/:campaignId": {
    auth: "key",
    foreign: (w) => `/v1/campaigns/${w.b.campaignId}`,
    body: () => ({ name: "taken over" }),
  },
  "POST /v1/campaigns/:campaignId/preview": {
    auth: "key",
    foreign: (w) => `/v1/campaigns/${w.b.campaignId}/preview`,
    body: () => ({ message: "hello" }),
  },
  "POST /v1/campaigns/:campaignId/functions/:name/test": {
    auth: "key",
    foreign: (w) => `/v1/campaigns/${w.b.campaignId}/functions/order_status/test`,
    body: () => ({ arguments: {} }),
  },
  "POST /v1/campaigns/:campaignId/knowledge": {
    auth: "key",
    foreign: (w) => `/v1/campaigns/${w.b.campaignId}/knowledge`,
    body: () => ({ question: "taken over?", answer: "yes" }),
  },
  "POST /v1/campaigns/:campaignId/knowledge/:index/phrasings": {
    auth: "key",
    foreign: (w) => `/v1/campaigns/${w.b.campaignId}/knowledge/0/phrasings`,
  },
  "POST /v1/campaigns/:campaignId/start": {
    auth: "key",
    foreign: (w) => `/v1/campaigns/${w.b.campaignId}/start`,
  },
  "POST /v1/campaigns/:campaignId/pause": {
    auth: "key",
    foreign: (w) => `/v1/campaigns/${w.b.campaignId}/pause`,
  },
  "GET /v1/campaigns/:campaignId/stats": {
    auth: "key",
    foreign: (w) => `/v1/campaigns/${w.b.campaignId}/stats`,
  },
  "GET /v1/campaigns/:campaignId/skipped": {
    auth: "key",
    foreign: (w) => `/v1/campaigns/${w.b.campaignId}/skipped`,
  },
  "DELETE /v1/campaigns/:campaignId": { auth: "key", foreign: (w) => `/v1/campaigns/${w.b.campaignId}` },
  // A campaign's knowledge sources: another tenant's campaign (with its own id, or ours with theirs).
  "POST /v1/campaigns/:campaignId/sources": {
    auth: "key",
    foreign: (w) => `/v1/campaigns/${w.b.campaignId}/sources`,
    body: () => ({ type: "url", url: "https://example.com/" }),
  },
  "GET /v1/campaigns/:campaignId/sources": {
    auth: "key",
    foreign: (w) => `/v1/campaigns/${w.b.campaignId}/sources`,
    list: (w) => `/v1/campaigns/${w.a.campaignId}/sources`,
  },
  "GET /v1/campaigns/:campaignId/sources/:sourceId": {
    auth: "key",
    foreign: (w) => `/v1/campaigns/${w.a.campaignId}/sources/${w.b.sourceId}`,
  },
  "PATCH /v1/campaigns/:campaignId/sources/:sourceId": {
    auth: "key",
    foreign: (w) => `/v1/campaigns/${w.b.campaignId}/sources/${w.b.sourceId}`,
    body: () => ({ dailyResync: false }),
  },
  "POST /v1/campaigns/:campaignId/sources/:sourceId/resync": {
    auth: "key",
    foreign: (w) => `/v1/campaigns/${w.a.campaignId}/sources/${w.b.sourceId}/resync`,
  },
  "DELETE /v1/campaigns/:campaignId/sources/:sourceId": {
    auth: "key",
    foreign: (w) => `/v1/campaigns/${w.b.campaignId}/sources/${w.b.sourceId}`,
  },
  "GET /v1/credits/transactions": { auth: "key", list: () => "/v1/credits/transactions" },
  "POST /v1/channels": key,
  "GET /v1/channels": { auth: "key", list: () => "/v1/channels" },
  "GET /v1/channels/:channelId": { auth: "key", foreign: (w) => `/v1/channels/${w.b.channelId}` },
  "PATCH /v1/channels/:channelId": {
    auth: "key",
    foreign: (w) => `/v1/channels/${w.b.channelId}`,
    body: () => ({ name: "taken over" }),
  },
  "DELETE /v1/channels/:channelId": { auth: "key", foreign: (w) => `/v1/channels/${w.b.channelId}` },
  // A provider's webhook: the provider's signature or secret token is its key (channel-meta,
  // channel-telegram and channel-twilio tests refuse a missing or wrong one, storing nothing).
  "GET /v1/channels/:channelId/inbound": { auth: "none" },
  "POST /v1/channels/:channelId/inbound": { auth: "none" },
  "POST /v1/subaccounts/credits": {
    auth: "agency",
    foreign: () => "/v1/subaccounts/credits",
    body: (w) => ({ email: w.y.subaccountEmail, amount: 5 }),
  },
  "GET /v1/subaccounts": { auth: "agency", list: () => "/v1/subaccounts" },
  "POST /v1/subaccounts": { auth: "agency", body: () => ({ email: `new${Date.now()}@example.com` }) },
  "GET /v1/subaccounts/:id": { auth: "agency", foreign: (w) => `/v1/subaccounts/${w.y.subaccountId}` },
  "PUT /v1/subaccounts/:id/auto-recharge": {
    auth: "agency",
    foreign: (w) => `/v1/subaccounts/${w.y.subaccountId}/auto-recharge`,
    body: () => ({ threshold: 1, rechargeAmount: 5 }),
  },
  "DELETE /v1/subaccounts/:id/auto-recharge": {
    auth: "agency",
    foreign: (w) => `/v1/subaccounts/${w.y.subaccountId}/auto-recharge`,
  },
  "GET /v1/subaccounts/:id/credits/transactions": {
    auth: "agency",
    foreign: (w) => `/v1/subaccounts/${w.y.subaccountId}/credits/transactions`,
  },
  "GET /v1/subaccounts/:id/usage": {
    auth: "agency",
    foreign: (w) => `/v1/subaccounts/${w.y.subaccountId}/usage`,
  },
  "GET /v1/subaccounts/:id/usage.csv": {
    auth: "agency",
    foreign: (w) => `/v1/subaccounts/${w.y.subaccountId}/usage.csv`,
  },
  "POST /v1/subaccounts/:id/suspend": {
    auth: "agency",
    foreign: (w) => `/v1/subaccounts/${w.y.subaccountId}/suspend`,
  },
  "POST /v1/subaccounts/:id/resume": {
    auth: "agency",
    foreign: (w) => `/v1/subaccounts/${w.y.subaccountId}/resume`,
  },
};

/** Routes outside the table's concern: health, the document, the docs page, the static web app. */
const NOT_API = /^\/(healthz|readyz|docs|v1\/openapi\.json|assets|\*|$)/;

/** Web-app routes that are open by design (onboarding, sign-in, invite and password-reset links). */
const APP_OPEN = new Set([
  "GET /app/api/onboarding",
  "POST /app/api/onboarding",
  "POST /app/api/session",
  "GET /app/api/session/state",
  "GET /app/api/invites/:token",
  "POST /app/api/invites/:token/accept",
  // The sign-in page's brand (by the request's host) and an agency's logo: shown before anyone signs in.
  "GET /app/api/brand/sign-in",
  "GET /app/api/brand-logos/:logoId",
  "POST /app/api/password-resets",
  "GET /app/api/password-resets/:token",
  "POST /app/api/password-resets/:token",
]);

/**
 * The chat widget's public routes: no key, no session; each checks the page's Origin against the
 * channel's allowedOrigins and a visitor token of that channel (widget.test.ts tests them in depth).
 */
const WIDGET_OPEN = new Set([
  "GET /widget.js",
  "OPTIONS /widget/v1/channels/:channelId/*",
  "GET /widget/v1/channels/:channelId/config",
  "POST /widget/v1/channels/:channelId/visitors",
  "GET /widget/v1/channels/:channelId/messages",
  "POST /widget/v1/channels/:channelId/messages",
  "POST /widget/v1/channels/:channelId/attachments",
  "POST /widget/v1/channels/:channelId/email",
  "POST /widget/v1/channels/:channelId/seen",
  "GET /widget/v1/channels/:channelId/messages/:messageId/attachment",
  "GET /widget/v1/channels/:channelId/events",
]);

const fill = (url: string) => url.replace(/:[A-Za-z]+/g, "x");

describe("route-security table", () => {
  let t: TestApp;
  let w: Tenants;
  let routes: Array<{ method: string; url: string; auth: string | undefined }>;
  beforeAll(async () => {
    t = await startTestApp();
    w = await tenants(t);
    routes = t.parley.routes.filter((r) => !NOT_API.test(r.url) && !r.url.startsWith("/docs"));
  });
  afterAll(() => t.close());

  const call = (method: string, url: string, apiKey?: string, payload?: unknown) =>
    t.inject({
      method: method as "POST",
      url,
      headers: apiKey ? { "x-api-key": apiKey } : {},
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  it("has a row for every /v1 route and names any route without one", () => {
    const v1 = routes.filter((r) => r.url.startsWith("/v1/"));
    expect(v1.length).toBeGreaterThanOrEqual(40);
    expect(v1.map((r) => `${r.method} ${r.url}`).filter((k) => !TABLE[k])).toEqual([]);
    // And no stale row: a row whose route is gone (renamed, removed) would test nothing.
    const served = new Set(v1.map((r) => `${r.method} ${r.url}`));
    expect(Object.keys(TABLE).filter((k) => !served.has(k))).toEqual([]);
    // Every /app/api route is session-authenticated unless it is one of the open ones.
    const app = routes.filter((r) => r.url.startsWith("/app/api/"));
    expect(app.filter((r) => r.auth !== "session" && !APP_OPEN.has(`${r.method} ${r.url}`))).toEqual([]);
  });

  it("answers 401 without a key on every keyed /v1 route, and the credits grant ignores a query key", async () => {
    const failures: string[] = [];
    for (const [route, row] of Object.entries(TABLE)) {
      if (row.auth === "none") continue;
      const [method, url] = route.split(" ") as [string, string];
      const res = await call(method, fill(url), undefined, row.body?.(w));
      if (res.statusCode !== 401) failures.push(`${route}: ${res.statusCode}`);
    }
    expect(failures).toEqual([]);
    const queryOnly = await call("POST", `/v1/subaccounts/credits?apiKey=${w.x.apiKey}`, undefined, {
      email: w.x.subaccountEmail,
      amount: 1,
    });
    expect(queryOnly.statusCode).toBe(401);
  });

  it("answers 404 (never 403) to another tenant's ids, and 404 to another agency's sub-account", async () => {
    const failures: string[] = [];
    for (const [route, row] of Object.entries(TABLE)) {
      if (!row.foreign) continue;
      const [method] = route.split(" ") as [string];
      const apiKey = row.auth === "agency" ? w.x.apiKey : w.a.apiKey;
      const res = await call(method, row.foreign(w), apiKey, row.body?.(w));
      if (res.statusCode !== 404) failures.push(`${route}: ${res.statusCode} ${res.body.slice(0, 120)}`);
    }
    expect(failures).toEqual([]);
  });

  it("never shows another tenant's rows in a list", async () => {
    const failures: string[] = [];
    const theirs = (row: Row) =>
      row.auth === "agency"
        ? [w.y.subaccountId, w.y.subaccountEmail]
        : [
            w.b.contactId,
            w.b.listId,
            w.b.conversationId,
            w.b.campaignId,
            w.b.inboundMessageId,
            w.b.accountId,
            w.b.cannedReplyId,
            w.b.sourceId,
          ];
    for (const [route, row] of Object.entries(TABLE)) {
      if (!row.list) continue;
      const res = await call("GET", row.list(w), row.auth === "agency" ? w.x.apiKey : w.a.apiKey);
      expect(res.statusCode, route).toBe(200);
      for (const id of theirs(row)) if (res.body.includes(id)) failures.push(`${route} shows ${id}`);
    }
    expect(failures).toEqual([]);
  });

  it("refuses agency routes to a sub-account's key and to a standard account's key (403 NOT_AGENCY)", async () => {
    const failures: string[] = [];
    for (const [route, row] of Object.entries(TABLE)) {
      if (row.auth !== "agency") continue;
      const [method, url] = route.split(" ") as [string, string];
      const path = row.foreign?.(w).replace(w.y.subaccountId, w.x.subaccountId) ?? fill(url);
      for (const apiKey of [w.x.subaccountKey, w.a.apiKey]) {
        const res = await call(method, path, apiKey, row.body?.(w));
        const code = res.statusCode === 403 ? errorCode(res) : null;
        if (code !== "NOT_AGENCY") failures.push(`${route}: ${res.statusCode}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("serves outside /v1 and /app/api only the widget's public routes, which answer nothing for an unknown channel", async () => {
    const other = routes.filter((r) => !r.url.startsWith("/v1/") && !r.url.startsWith("/app/api/"));
    expect(other.map((r) => `${r.method} ${r.url}`).filter((k) => !WIDGET_OPEN.has(k))).toEqual([]);
    expect(other.filter((r) => r.auth !== "none")).toEqual([]);
    const failures: string[] = [];
    for (const r of other.filter((r) => r.url.startsWith("/widget/"))) {
      const res = await t.inject({
        method: r.method as "GET",
        url: fill(r.url).replace("*", "messages"),
        headers: { origin: "https://shop.example" },
        ...(r.method === "POST" ? { payload: {} } : {}),
      });
      if (res.statusCode !== 404) failures.push(`${r.method} ${r.url}: ${res.statusCode}`);
    }
    expect(failures).toEqual([]);
  });

  it("answers 401 on every session route of the web app's API without a session", async () => {
    const failures: string[] = [];
    for (const r of routes.filter((r) => r.url.startsWith("/app/api/") && r.auth === "session")) {
      const res = await call(
        r.method,
        fill(r.url),
        undefined,
        ["POST", "PATCH", "PUT"].includes(r.method) ? {} : undefined,
      );
      if (res.statusCode !== 401) failures.push(`${r.method} ${r.url}: ${res.statusCode}`);
    }
    expect(failures).toEqual([]);
  });
});
