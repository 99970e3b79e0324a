// The API key made with the account during onboarding is shown once, to the owner who just created it
// (the web app shows it with a copy button); it is never shown again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserFrom } from "./app-helpers.ts";
import { json, startTestApp, type TestApp } from "./helpers.ts";

describe("onboarding's API key", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it("comes back once in the onboarding answer and works on /v1; the session never repeats it", async () => {
    const res = await t.inject({
      method: "POST",
      url: "/app/api/onboarding",
      payload: { businessName: "Acme Bikes", email: "owner@acme.test", password: "correct horse battery" },
    });
    expect(res.statusCode, res.body).toBe(201);
    const { apiKey } = json<{ apiKey: string }>(res);
    expect(apiKey).toMatch(/^pk_live_[0-9A-Za-z]{32}$/);
    expect((await t.inject({ method: "GET", url: `/v1/account?apiKey=${apiKey}` })).statusCode).toBe(200);

    const browser = browserFrom(t, res);
    const session = await browser.req({ method: "GET", url: "/app/api/session" });
    expect(session.statusCode).toBe(200);
    expect(session.body).not.toContain(apiKey);
    const settings = await browser.req({ method: "GET", url: "/app/api/settings" });
    expect(settings.body).not.toContain(apiKey);
    expect(json<{ apiKey: { prefix: string } }>(settings).apiKey.prefix).toBe(apiKey.slice(0, 12));
  });
});
