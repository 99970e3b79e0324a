// A two-tenant world for security tests (model: unkey's harness): two unrelated standard accounts
// with a contact, a list with a member, a conversation with an inbound and an outbound message, and
// a campaign each; and two agencies, each with a sub-account. Everything is made through the API.
import { json, type TestApp } from "./helpers.ts";

export interface Tenant {
  accountId: string;
  apiKey: string;
  contactId: string;
  phone: string;
  email: string;
  listId: string;
  conversationId: string;
  inboundMessageId: string;
  outboundMessageId: string;
  campaignId: string;
  importId: string;
  /** A web chat widget channel. */
  channelId: string;
  cannedReplyId: string;
  /** A knowledge source of the campaign. */
  sourceId: string;
}

export interface Agency {
  accountId: string;
  apiKey: string;
  subaccountId: string;
  subaccountEmail: string;
  subaccountKey: string;
}

export interface Tenants {
  a: Tenant;
  b: Tenant;
  x: Agency;
  y: Agency;
}

let seq = 0;

async function call<T>(
  t: TestApp,
  method: string,
  url: string,
  apiKey: string,
  payload?: unknown,
): Promise<T> {
  const res = await t.inject({
    method: method as "POST",
    url,
    headers: { "x-api-key": apiKey },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return json<T>(res);
}

async function tenant(t: TestApp, receiverUrl: string): Promise<Tenant> {
  const n = ++seq;
  const acc = await t.account();
  const { updateSettings } = await import("../src/modules/accounts/service.ts");
  await updateSettings(t.parley.db, acc.accountId, { webhook_url: receiverUrl });
  const phone = `+1415555${String(1000 + n).padStart(4, "0")}`;
  const email = `tenant${n}@example.com`;
  const contact = await call<{ id: string }>(t, "POST", "/v1/contacts", acc.apiKey, {
    phone,
    email,
    firstName: "T",
  });
  const list = await call<{ id: string }>(t, "POST", "/v1/lists", acc.apiKey, { name: `list ${n}` });
  await call(t, "POST", `/v1/lists/${list.id}/contacts`, acc.apiKey, { contactId: contact.id });
  const inbound = await call<{ messageId: string }>(
    t,
    "POST",
    "/v1/incoming_custom_channel_message",
    acc.apiKey,
    {
      customData: { messageSid: `sec-${n}`, fromId: `sender-${n}`, toId: "biz", body: "hello" },
    },
  );
  const sent = await call<{ messageId: string }>(t, "POST", "/v1/send_custom_channel_message", acc.apiKey, {
    customData: { fromId: `sender-${n}`, customChannel: "web", body: "hi back" },
  });
  const message = await call<{ conversationId: string }>(
    t,
    "GET",
    `/v1/messages/${inbound.messageId}`,
    acc.apiKey,
  );
  const campaign = await call<{ id: string }>(t, "POST", "/v1/campaigns", acc.apiKey, {
    name: `campaign ${n}`,
  });
  const upload = await t.inject({
    method: "POST",
    url: `/v1/contacts/imports?apiKey=${acc.apiKey}`,
    headers: { "content-type": "text/csv" },
    payload: `Phone,Name\n${phone},Imported\n`,
  });
  const imported = json<{ importId: string }>(upload);
  const channel = await call<{ id: string }>(t, "POST", "/v1/channels", acc.apiKey, {
    type: "web",
    name: `widget ${n}`,
    config: { allowedOrigins: [`https://shop${n}.example`] },
  });
  const canned = await call<{ id: string }>(t, "POST", "/v1/canned-replies", acc.apiKey, {
    shortcut: `hours${n}`,
    title: "Opening hours",
    body: "Hi {{firstName}}, we are open 9 to 5.",
  });
  const source = await call<{ id: string }>(t, "POST", `/v1/campaigns/${campaign.id}/sources`, acc.apiKey, {
    type: "file",
    name: `notes${n}.txt`,
    contentType: "text/plain",
    data: Buffer.from("We are open 9 to 5.").toString("base64"),
  });
  return {
    accountId: acc.accountId,
    apiKey: acc.apiKey,
    contactId: contact.id,
    phone,
    email,
    listId: list.id,
    conversationId: message.conversationId,
    inboundMessageId: inbound.messageId,
    outboundMessageId: sent.messageId,
    campaignId: campaign.id,
    importId: imported.importId,
    channelId: channel.id,
    cannedReplyId: canned.id,
    sourceId: source.id,
  };
}

async function agency(t: TestApp): Promise<Agency> {
  const acc = await t.account({ kind: "agency" });
  const subaccountEmail = `sub${++seq}@example.com`;
  const sub = await call<{ id: string; apiKey: string }>(t, "POST", "/v1/subaccounts", acc.apiKey, {
    email: subaccountEmail,
  });
  return {
    accountId: acc.accountId,
    apiKey: acc.apiKey,
    subaccountId: sub.id,
    subaccountEmail,
    subaccountKey: sub.apiKey,
  };
}

/** The fixture: tenants a and b, agencies x and y. `receiverUrl` takes the replies (allowed address). */
export async function tenants(t: TestApp, receiverUrl = "http://127.0.0.1:9/hooks"): Promise<Tenants> {
  const [a, b] = [await tenant(t, receiverUrl), await tenant(t, receiverUrl)];
  const [x, y] = [await agency(t), await agency(t)];
  return { a, b, x, y };
}
