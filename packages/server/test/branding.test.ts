// Agency branding (issue 38): an agency's owners and admins set a name, a colour, a logo and their own
// address; its sub-accounts' sessions and chat widgets carry it; the sign-in page reached through the
// agency's address gets it, and nowhere else. Another agency neither sees nor changes it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, browserFrom, ownerBrowser, PASSWORD, signIn, teammate } from "./app-helpers.ts";
import { makePng } from "./fixtures/png.ts";
import { errorCode, json, newAgency, startTestApp, type TestApp } from "./helpers.ts";

interface Brand {
  name: string;
  color: string;
  textColor: string;
  logoUrl: string | null;
  publicUrl?: string | null;
}

const SHOP = "https://shop.example";

describe("agency branding", () => {
  let t: TestApp;
  let agency: Browser;
  let agencyId = "";
  beforeAll(async () => {
    t = await startTestApp();
    const a = await newAgency(t);
    agencyId = a.accountId;
    agency = await signIn(t, a.email);
  });
  afterAll(async () => t?.close());

  const setBrand = (b: Browser, payload: Record<string, unknown>) =>
    b.req({ method: "PUT", url: "/app/api/brand", payload });

  it("saves the name, colour and address, refusing bad input without changing anything", async () => {
    expect(json(await agency.req({ method: "GET", url: "/app/api/brand" }))).toEqual({ brand: null });
    const logoFirst = await agency.req({
      method: "PUT",
      url: "/app/api/brand/logo",
      payload: { data: makePng().toString("base64") },
    });
    expect(logoFirst.statusCode).toBe(404);
    const saved = await setBrand(agency, {
      name: "  Northwind Digital ",
      color: "#7C3AED",
      publicUrl: "https://Chat.Northwind.example/",
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(json<Brand>(saved)).toEqual({
      name: "Northwind Digital",
      color: "#7c3aed",
      textColor: "#ffffff",
      logoUrl: null,
      publicUrl: "https://chat.northwind.example",
    });
    for (const [payload, field] of [
      [{ name: "", color: "#7c3aed" }, "name"],
      [{ name: "x".repeat(61), color: "#7c3aed" }, "name"],
      [{ name: "Ok", color: "purple" }, "color"],
      [{ name: "Ok", color: "#7c3aed", publicUrl: "not a url" }, "publicUrl"],
      [{ name: "Ok", color: "#7c3aed", publicUrl: "https://a.example/path" }, "publicUrl"],
      [{ name: "Ok" }, "color"],
    ] as const) {
      const res = await setBrand(agency, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(errorCode(res)).toBe("VALIDATION_ERROR");
      expect(res.body).toContain(field);
    }
    const after = json<{ brand: Brand }>(await agency.req({ method: "GET", url: "/app/api/brand" }));
    expect(after.brand.name).toBe("Northwind Digital");
    // A light colour gets dark text.
    const light = json<Brand>(await setBrand(agency, { name: "Northwind Digital", color: "#fde047" }));
    expect(light.textColor).toBe("#111827");
    expect(light.publicUrl).toBe("https://chat.northwind.example"); // kept when not sent
    await setBrand(agency, { name: "Northwind Digital", color: "#7c3aed" });
  });

  it("stores a PNG logo, serves it openly, refuses other files and too large ones, and removes it", async () => {
    const png = makePng(4, 4);
    const bad = await agency.req({
      method: "PUT",
      url: "/app/api/brand/logo",
      payload: { data: Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>").toString("base64") },
    });
    expect(bad.statusCode).toBe(400);
    expect(errorCode(bad)).toBe("INVALID_MEDIA");
    const big = Buffer.concat([png, Buffer.alloc(520 * 1024)]);
    const tooBig = await agency.req({
      method: "PUT",
      url: "/app/api/brand/logo",
      payload: { data: big.toString("base64") },
    });
    expect(tooBig.statusCode).toBe(413);
    const res = await agency.req({
      method: "PUT",
      url: "/app/api/brand/logo",
      payload: { data: png.toString("base64") },
    });
    expect(res.statusCode, res.body).toBe(200);
    const { logoUrl } = json<Brand>(res);
    expect(logoUrl).toMatch(/^\/app\/api\/brand-logos\/[A-Za-z0-9_-]+$/);
    const file = await t.inject({ method: "GET", url: logoUrl! });
    expect(file.statusCode).toBe(200);
    expect(file.headers["content-type"]).toBe("image/png");
    expect(file.headers["cross-origin-resource-policy"]).toBe("cross-origin");
    expect(file.rawPayload.equals(png)).toBe(true);
    // A new logo replaces the old one: the old address answers 404.
    const again = json<Brand>(
      await agency.req({
        method: "PUT",
        url: "/app/api/brand/logo",
        payload: { data: png.toString("base64") },
      }),
    );
    expect(again.logoUrl).not.toBe(logoUrl);
    expect((await t.inject({ method: "GET", url: logoUrl! })).statusCode).toBe(404);
    const removed = json<Brand>(await agency.req({ method: "DELETE", url: "/app/api/brand/logo" }));
    expect(removed.logoUrl).toBeNull();
    expect((await t.inject({ method: "GET", url: again.logoUrl! })).statusCode).toBe(404);
    await agency.req({
      method: "PUT",
      url: "/app/api/brand/logo",
      payload: { data: png.toString("base64") },
    });
  });

  it("is for an agency's owners and admins only; another agency cannot read or change it", async () => {
    const agent = await teammate(t, agency, "agent");
    expect((await agent.req({ method: "GET", url: "/app/api/brand" })).statusCode).toBe(403);
    expect((await setBrand(agent, { name: "Evil", color: "#000000" })).statusCode).toBe(403);
    const admin = await teammate(t, agency, "admin");
    expect(json<{ brand: Brand }>(await admin.req({ method: "GET", url: "/app/api/brand" })).brand.name).toBe(
      "Northwind Digital",
    );
    const standard = (await ownerBrowser(t)).browser;
    const refused = await standard.req({ method: "GET", url: "/app/api/brand" });
    expect(errorCode(refused)).toBe("NOT_AGENCY");
    // Another agency has its own (none), and its writes touch only its own.
    const other = await signIn(t, (await newAgency(t)).email);
    expect(json(await other.req({ method: "GET", url: "/app/api/brand" }))).toEqual({ brand: null });
    expect((await other.req({ method: "DELETE", url: "/app/api/brand/logo" })).statusCode).toBe(404);
    const taken = await setBrand(other, {
      name: "Other",
      color: "#000000",
      publicUrl: "https://chat.northwind.example",
    });
    expect(errorCode(taken)).toBe("VALIDATION_ERROR");
    expect((await other.req({ method: "DELETE", url: "/app/api/brand" })).statusCode).toBe(204);
    const mine = json<{ brand: Brand }>(await agency.req({ method: "GET", url: "/app/api/brand" }));
    expect(mine.brand).toMatchObject({ name: "Northwind Digital", color: "#7c3aed" });
    expect(mine.brand.logoUrl).not.toBeNull();
    expect(
      (await agency.req({ method: "GET", url: "/app/api/brand", csrf: false, headers: { cookie: "" } }))
        .statusCode,
    ).toBe(401);
  });

  it("a sub-account's people start with the agency's brand; the agency's own and other accounts do not", async () => {
    const created = await agency.req({
      method: "POST",
      url: "/app/api/subaccounts",
      payload: { email: "owner@client-a.example", name: "Client A" },
    });
    expect(created.statusCode, created.body).toBe(201);
    const token = json<{ ownerInvite: { url: string } }>(created).ownerInvite.url.split("/invite/")[1]!;
    const accepted = await t.inject({
      method: "POST",
      url: `/app/api/invites/${token}/accept`,
      payload: { name: "Ann Client", password: PASSWORD },
    });
    expect(accepted.statusCode, accepted.body).toBe(201);
    expect(json<{ brand: Brand }>(accepted).brand).toMatchObject({
      name: "Northwind Digital",
      color: "#7c3aed",
    });
    const client = browserFrom(t, accepted);
    const state = json<{ session: { brand: Brand } }>(
      await client.req({ method: "GET", url: "/app/api/session/state" }),
    );
    expect(state.session.brand).toMatchObject({ name: "Northwind Digital", textColor: "#ffffff" });
    expect(state.session.brand.logoUrl).toMatch(/^\/app\/api\/brand-logos\//);
    expect("publicUrl" in state.session.brand).toBe(false);
    const signedIn = await signIn(t, "owner@client-a.example");
    expect(
      json<{ brand: Brand }>(await signedIn.req({ method: "GET", url: "/app/api/session" })).brand?.name,
    ).toBe("Northwind Digital");
    // The sub-account's people cannot change it.
    expect((await setBrand(signedIn, { name: "Mine", color: "#000000" })).statusCode).toBe(403);
    expect(
      json<{ brand: Brand | null }>(await agency.req({ method: "GET", url: "/app/api/session" })).brand,
    ).toBeNull();
    const standard = (await ownerBrowser(t)).browser;
    expect(
      json<{ brand: Brand | null }>(await standard.req({ method: "GET", url: "/app/api/session" })).brand,
    ).toBeNull();
  });

  it("a sub-account's chat widget carries the brand: its colour in place of Parley's default, its name and logo", async () => {
    const sub = await t.account({ kind: "subaccount", parentAccountId: agencyId });
    const channel = async (color?: string) => {
      const res = await t.inject({
        method: "POST",
        url: "/v1/channels",
        headers: { "x-api-key": sub.apiKey },
        payload: {
          type: "web",
          name: "Site",
          config: { allowedOrigins: [SHOP], ...(color ? { color } : {}) },
        },
      });
      expect(res.statusCode, res.body).toBe(201);
      return json<{ id: string }>(res).id;
    };
    const config = async (channelId: string) => {
      const res = await t.inject({
        method: "GET",
        url: `/widget/v1/channels/${channelId}/config`,
        headers: { origin: SHOP },
      });
      expect(res.statusCode, res.body).toBe(200);
      return json<{
        color: string;
        textColor: string;
        brand: { name: string; logoUrl: string | null } | null;
      }>(res);
    };
    const branded = await config(await channel());
    expect(branded).toMatchObject({
      color: "#7c3aed",
      textColor: "#ffffff",
      brand: { name: "Northwind Digital" },
    });
    expect(branded.brand?.logoUrl).toMatch(/^\/app\/api\/brand-logos\//);
    // A colour the business chose itself stays.
    expect(await config(await channel("#065f46"))).toMatchObject({
      color: "#065f46",
      brand: { name: "Northwind Digital" },
    });
    // A standard account's widget: Parley's own.
    const plain = await t.account();
    const res = await t.inject({
      method: "POST",
      url: "/v1/channels",
      headers: { "x-api-key": plain.apiKey },
      payload: { type: "web", name: "Site", config: { allowedOrigins: [SHOP] } },
    });
    expect(await config(json<{ id: string }>(res).id)).toMatchObject({ color: "#2563eb", brand: null });
  });

  it("the sign-in page gets the brand only through the agency's own address", async () => {
    const at = (host: string) =>
      t.inject({ method: "GET", url: "/app/api/brand/sign-in", headers: { host } });
    const own = json<{ brand: Brand | null }>(await at("chat.northwind.example"));
    expect(own.brand).toMatchObject({ name: "Northwind Digital", color: "#7c3aed", textColor: "#ffffff" });
    expect(own.brand && "publicUrl" in own.brand).toBe(false);
    expect(json(await at("CHAT.Northwind.example"))).toMatchObject({ brand: { name: "Northwind Digital" } });
    for (const host of ["localhost", "chat.northwind.example:8443", "other.example"]) {
      expect(json(await at(host)), host).toEqual({ brand: null });
    }
    // Cleared: the address answers Parley's own again.
    await setBrand(agency, { name: "Northwind Digital", color: "#7c3aed", publicUrl: null });
    expect(json(await at("chat.northwind.example"))).toEqual({ brand: null });
  });
});
