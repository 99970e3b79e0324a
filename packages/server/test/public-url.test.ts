// Links Parley builds (invite links, a sub-account owner's link, the setup link) come from PUBLIC_URL,
// never from a request's Host header; without PUBLIC_URL only a loopback or the configured HOST is used.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.ts";
import { linkBase, setupNotice } from "../src/platform/public-url.ts";
import { ownerBrowser } from "./app-helpers.ts";
import { json, newAgency, startTestApp, type TestApp, uniqueEmail } from "./helpers.ts";

describe("PUBLIC_URL in the configuration", () => {
  it("is parsed once: an http(s) origin, a trailing slash dropped", () => {
    expect(loadConfig({}).publicUrl).toBeNull();
    expect(loadConfig({ PUBLIC_URL: "https://Parley.Example.com/" }).publicUrl).toBe(
      "https://parley.example.com",
    );
    expect(loadConfig({ PUBLIC_URL: "http://10.0.0.5:8443" }).publicUrl).toBe("http://10.0.0.5:8443");
  });

  it("refuses anything else with a clear message", () => {
    for (const bad of [
      "parley.example.com",
      "ftp://parley.example.com",
      "https://parley.example.com/parley",
      "https://parley.example.com/?x=1",
      "https://parley.example.com/#top",
      "https://user:pw@parley.example.com",
    ]) {
      expect(() => loadConfig({ PUBLIC_URL: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ PUBLIC_URL: bad }), bad).toThrow(/PUBLIC_URL/);
    }
  });
});

describe("linkBase without PUBLIC_URL", () => {
  const config = (env: Record<string, string> = {}) => loadConfig({ PORT: "8443", ...env });
  it("uses a loopback or the configured HOST as the request named it, else the loopback address", () => {
    expect(linkBase(config(), "localhost:8443", 8443)).toBe("https://localhost:8443");
    expect(linkBase(config(), "127.0.0.1:9000", 9000)).toBe("https://127.0.0.1:9000");
    expect(linkBase(config(), "[::1]:8443", 8443)).toBe("https://[::1]:8443");
    expect(linkBase(config({ HOST: "parley.lan" }), "parley.lan:8443", 8443)).toBe("https://parley.lan:8443");
    expect(linkBase(config(), "evil.example", 8443)).toBe("https://localhost:8443");
    expect(linkBase(config(), "evil.example:8443", 4321)).toBe("https://localhost:4321");
    expect(linkBase(config(), "localhost@evil.example", 8443)).toBe("https://localhost:8443");
    expect(linkBase(config(), undefined, 8443)).toBe("https://localhost:8443");
  });
  it("with PUBLIC_URL, always PUBLIC_URL", () => {
    const c = config({ PUBLIC_URL: "https://parley.example.com" });
    expect(linkBase(c, "evil.example", 8443)).toBe("https://parley.example.com");
    expect(linkBase(c, "localhost:8443", 8443)).toBe("https://parley.example.com");
  });
});

describe("the setup notice", () => {
  const url = "https://localhost:8443/onboarding?setupToken=abc";
  it("is one plain line on a terminal, nothing otherwise", () => {
    expect(setupNotice(url, true)).toBe(`Open ${url} to create the first account\n`);
    expect(setupNotice(url, false)).toBeNull();
    expect(setupNotice(url, undefined)).toBeNull();
  });
});

describe("links in answers", () => {
  let plain: TestApp;
  let configured: TestApp;
  beforeAll(async () => {
    plain = await startTestApp();
    configured = await startTestApp({ PUBLIC_URL: "https://parley.example.com" });
  });
  afterAll(async () => {
    await plain?.close();
    await configured?.close();
  });

  async function inviteUrl(t: TestApp, host: string) {
    const { browser } = await ownerBrowser(t);
    const res = await browser.req({
      method: "POST",
      url: "/app/api/team/invites",
      headers: { host },
      payload: { email: uniqueEmail("invitee"), role: "agent" },
    });
    expect(res.statusCode, res.body).toBe(201);
    return new URL(json<{ url: string }>(res).url);
  }

  async function ownerInviteUrl(t: TestApp, host: string) {
    const a = await newAgency(t);
    const res = await t.inject({
      method: "POST",
      url: "/v1/subaccounts",
      headers: { host, "x-api-key": a.apiKey },
      payload: { email: uniqueEmail("sub") },
    });
    expect(res.statusCode, res.body).toBe(201);
    return new URL(json<{ ownerInvite: { url: string } }>(res).ownerInvite.url);
  }

  it("Host: evil.example never reaches an invite link", async () => {
    for (const url of [await inviteUrl(plain, "evil.example"), await ownerInviteUrl(plain, "evil.example")]) {
      expect(url.hostname).toBe("localhost");
      expect(url.protocol).toBe("https:");
      expect(url.pathname).toMatch(/^\/invite\/[\w-]{40,}$/);
    }
    expect((await inviteUrl(plain, "localhost:8443")).host).toBe("localhost:8443");
  });

  it("PUBLIC_URL builds every link, whatever the Host header", async () => {
    for (const url of [
      await inviteUrl(configured, "evil.example"),
      await inviteUrl(configured, "localhost:8443"),
      await ownerInviteUrl(configured, "evil.example"),
    ]) {
      expect(url.origin).toBe("https://parley.example.com");
      expect(url.pathname).toMatch(/^\/invite\/[\w-]{40,}$/);
    }
  });
});
