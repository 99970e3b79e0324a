// The end-to-end harness: a real `parley serve` (SQLite, its own data directory), a real webhook
// receiver on loopback, Debian's Chromium through Playwright, and an axe-core check per page.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import AxeBuilder from "@axe-core/playwright";
import { type APIRequestContext, type Browser, chromium, type Page, request } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect } from "vitest";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PARLEY_BIN = path.resolve(HERE, "../../server/bin/parley.js");
const SCREENSHOTS = path.resolve(HERE, "../../../docs/screenshots");
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export interface Parley {
  url: string;
  dataDir: string;
  /** Runs a `parley` command on the same data directory (as an operator on the server would). */
  cli(args: string[]): Promise<string>;
  stop(): Promise<void>;
}

/** `parley serve` on a fresh SQLite data directory, on a free loopback port, over HTTPS. */
export async function startParley(extraEnv: Record<string, string> = {}): Promise<Parley> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-e2e-"));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: "silent",
    // The receiver listens on loopback, which the outbound guard refuses unless allowed.
    OUTBOUND_ALLOW_CIDRS: "127.0.0.0/8",
    ...extraEnv,
  };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const child: ChildProcess = spawn(process.execPath, [PARLEY_BIN, "serve"], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (c) => (stderr += c));
  const line = await new Promise<Record<string, unknown>>((resolve, reject) => {
    let stdout = "";
    child.stdout?.on("data", (c) => {
      stdout += c;
      const nl = stdout.indexOf("\n");
      if (nl >= 0) resolve(JSON.parse(stdout.slice(0, nl)) as Record<string, unknown>);
    });
    child.on("exit", (code) => reject(new Error(`parley serve exited early (${code}): ${stderr}`)));
  });
  const url = String(line.url).replace(/\/$/, "");
  return {
    url,
    dataDir,
    cli: (args) =>
      new Promise((resolve, reject) => {
        const run = spawn(process.execPath, [PARLEY_BIN, ...args], {
          env,
          stdio: ["ignore", "pipe", "pipe"],
        });
        let out = "";
        let err = "";
        run.stdout.on("data", (c) => (out += c));
        run.stderr.on("data", (c) => (err += c));
        run.on("close", (code) =>
          code === 0 ? resolve(out) : reject(new Error(`parley ${args[0]}: ${err}`)),
        );
      }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.on("exit", r));
        child.kill("SIGTERM");
        await exited;
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** Starts `server` on a free loopback port; answers the port and a close that drops open connections. */
export async function listenOnLoopback(
  server: http.Server,
): Promise<{ port: number; close(): Promise<void> }> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** A webhook receiver that records every POST and answers 200, or 500 while `failing` is set. */
export async function startReceiver() {
  const received: Received[] = [];
  const state = { failing: false };
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {}
      received.push({ headers: req.headers, body });
      if (state.failing) res.writeHead(500, { "content-type": "text/plain" }).end("receiver is down");
      else res.writeHead(200, { "content-type": "text/plain" }).end("thanks from the receiver");
    });
  });
  const { port, close } = await listenOnLoopback(server);
  return { url: `http://127.0.0.1:${port}/parley`, received, state, close };
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
}

/**
 * What Chromium reported as blocked by the Content-Security-Policy, on every page of the run (the app
 * must work under its policy: a test expects this to stay empty).
 */
export const cspViolations: string[] = [];

export async function newPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({
    ignoreHTTPSErrors: true,
    viewport: { width: 1280, height: 860 },
    locale: "en-GB",
    timezoneId: "UTC",
  });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  // An error thrown in the app shows in the test output (a blank page says nothing by itself).
  page.on("pageerror", (err) => console.error(`page error: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error" && /Content Security Policy/i.test(msg.text())) {
      cspViolations.push(`${page.url()}: ${msg.text()}`);
    }
  });
  return page;
}

/** The public API, as a business's system calls it (never from the browser). */
export async function apiClient(baseURL: string) {
  return request.newContext({ baseURL, ignoreHTTPSErrors: true });
}

/** axe-core on the page as it is now: no serious or critical violation. */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  let bad: Array<{ id: string; impact: string | null | undefined; help: string; nodes: string[] }> = [];
  // A page that moved while axe read it (a notification closing on its timer, say) is read again at
  // rest: its contrast was measured on a blend no one reads. A violation on a page at rest fails.
  for (let attempt = 1; attempt <= 3; attempt++) {
    await atRest(page);
    await page.evaluate(() => {
      const w = window as unknown as { __parleyMoves?: number };
      if (w.__parleyMoves === undefined) {
        const moved = () => {
          w.__parleyMoves = (w.__parleyMoves ?? 0) + 1;
        };
        document.addEventListener("transitionstart", moved, true);
        document.addEventListener("animationstart", moved, true);
      }
      w.__parleyMoves = 0;
    });
    const result = await new AxeBuilder({ page }).analyze();
    bad = result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.slice(0, 3).map((n) => `${n.html.slice(0, 300)}: ${n.failureSummary ?? ""}`),
      }));
    const moved = await page.evaluate(
      () => (window as unknown as { __parleyMoves?: number }).__parleyMoves ?? 0,
    );
    if (bad.length === 0 || moved === 0) break;
  }
  expect(bad, `${what}: ${JSON.stringify(bad, null, 2)}`).toEqual([]);
}

/** The page as a person reads it: its data arrived (no loading indicator) and nothing is moving. */
async function atRest(page: Page): Promise<void> {
  await page.waitForFunction(
    () => document.querySelectorAll('[role="status"][aria-label^="Loading"]').length === 0,
  );
  // A dialog, drawer or notification still fading in is half transparent, and axe would measure the
  // contrast of a blend no one reads. Endless animations (spinners) don't count.
  await page.waitForFunction(() =>
    document
      .getAnimations()
      .every(
        (a) => a.playState !== "running" || a.effect?.getTiming().iterations === Number.POSITIVE_INFINITY,
      ),
  );
}

/** With PARLEY_SCREENSHOTS=1 the suite refreshes docs/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string, { fullPage = true } = {}): Promise<void> {
  if (process.env.PARLEY_SCREENSHOTS !== "1") return;
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  // A dialog is fixed to the viewport: a full-page capture would cut the page behind it apart.
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage });
}

/** Polls until `check` holds (for effects outside the page, such as what a receiver got). */
export async function eventually<T>(check: () => T | undefined | false, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > until) throw new Error("not reached in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Onboards a fresh server through its form; answers the API key the form shows once. */
export async function onboardWithKey(page: Page, url: string, business: string): Promise<string> {
  await page.goto(`${url}/onboarding`);
  await page.getByLabel("Business name").fill(business);
  await page.getByLabel("Email").fill(`owner@${business.toLowerCase().replace(/\W+/g, "-")}.test`);
  await page.getByLabel("Password").fill("a long enough password");
  await page.getByRole("button", { name: "Create account" }).click();
  const key = (await page.getByTestId("new-api-key").textContent())?.trim() ?? "";
  if (!key.startsWith("pk_live_")) throw new Error(`no API key shown: ${key}`);
  await page.getByRole("button", { name: "Continue to settings" }).click();
  await page.getByRole("heading", { name: "Settings" }).waitFor();
  return key;
}

/** A failed step: where the page was, the start of its text (the output), and a screenshot in the temp folder. */
export async function showFailure(page: Page, step: string): Promise<void> {
  const text =
    (await page
      .locator("body")
      .textContent()
      .catch(() => "(no page)")) ?? "";
  console.error(`--- ${step}: page ${page.url()}\n${text.slice(0, 2000)}`);
  await page
    .screenshot({ path: path.join(os.tmpdir(), "parley-e2e-failed.png"), fullPage: true })
    .catch(() => {});
}

/** Saves the webhook URL on the settings page (where onboarding lands) and waits for the confirmation. */
export async function saveWebhookUrl(page: Page, url: string): Promise<void> {
  await page.getByLabel("Webhook URL").fill(url);
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByText("Webhook URL saved").waitFor();
}

export interface Teammate {
  name: string;
  email: string;
  password: string;
}

/**
 * The owner (on the settings page) creates an invite link; the teammate opens it in their own browser
 * context and joins. Answers the link.
 */
export async function inviteTeammate(owner: Page, teammate: Page, person: Teammate): Promise<string> {
  await owner.getByLabel("Invite by email").fill(person.email);
  await owner.getByRole("button", { name: "Create invite link" }).click();
  const link = (await owner.getByTestId("invite-link").textContent())?.trim() ?? "";
  await teammate.goto(`${new URL(owner.url()).origin}${new URL(link).pathname}`);
  await teammate.getByLabel("Your name").fill(person.name);
  await teammate.getByLabel("Password").fill(person.password);
  await teammate.getByRole("button", { name: "Join" }).click();
  await teammate.getByRole("heading", { name: "Inbox" }).waitFor();
  return link;
}

/** `parley account create` on the server's data directory, as an operator does on the server. */
export async function createAccount(
  parley: Parley,
  account: { email: string; password: string; agency?: boolean; parent?: string; credits?: number },
): Promise<void> {
  await parley.cli([
    "account",
    "create",
    ...["--email", account.email, "--password", account.password],
    ...(account.agency ? ["--agency"] : []),
    ...(account.parent ? ["--parent", account.parent] : []),
    ...(account.credits === undefined ? [] : ["--credits", String(account.credits)]),
  ]);
}

/** Signs in through the sign-in page and waits until the form is gone. */
export async function signIn(page: Page, url: string, email: string, password: string): Promise<void> {
  await page.goto(`${url}/signin`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign in" }).waitFor({ state: "detached" });
}

/** A website visitor on `origin` opens the chat of a web channel and writes once, as widget.js does. */
export async function visitorWrites(
  api: APIRequestContext,
  channelId: string,
  origin: string,
  message: { body: string; clientMessageId: string },
): Promise<{ visitorId: string; visitorToken: string }> {
  const visitor = await api.post(`/widget/v1/channels/${channelId}/visitors`, {
    headers: { origin },
    data: {},
  });
  expect(visitor.status(), await visitor.text()).toBe(201);
  const opened = (await visitor.json()) as { visitorId: string; visitorToken: string };
  const sent = await api.post(`/widget/v1/channels/${channelId}/messages`, {
    headers: { origin, authorization: `Bearer ${opened.visitorToken}` },
    data: message,
  });
  expect(sent.status(), await sent.text()).toBe(201);
  return opened;
}

/** A channel as /v1/channels answers it. */
export interface ChannelJson {
  id: string;
  type: string;
  name: string;
  status: string;
  campaignId: string | null;
  lastError: string | null;
  config: Record<string, unknown>;
  embedSnippet: string | null;
  inboundUrl: string | null;
}

export interface BrowserSuiteOptions {
  /** Environment of `parley serve`; a function when it names a stand-in the file starts in its own beforeAll. */
  env?: Record<string, string> | (() => Record<string, string>);
  /** Onboards through the form under this business name; the key it shows lands in `apiKey`. */
  business?: string;
  /** Starts a webhook receiver (`receiver`); "saved" also saves its URL on the settings page after onboarding. */
  receiver?: "started" | "saved";
  /** Browser permissions of the first page on the server's origin (the clipboard, notifications). */
  permissions?: string[];
}

/** One server, one browser, one signed-in page and the public API, shared by the tests of a file. */
export interface BrowserSuite {
  parley: Parley;
  browser: Browser;
  /** The first page: the owner's once onboarded. */
  page: Page;
  api: APIRequestContext;
  /** Set by onboarding (the `business` option, or a test that onboards and stores it here). */
  apiKey: string;
  /** With the `receiver` option only. */
  receiver: Receiver;
  /** Another browser context (a teammate, a visitor); on a failed test its page is shown as `who`'s. */
  newPage(who: string): Promise<Page>;
  /** A customer's message through the custom channel, as the business's system posts it; expects 200. */
  incoming(customData: Record<string, unknown>): Promise<{ messageId: string }>;
  /** A /v1 call with the API key; expects a 2xx and answers the JSON. */
  v1<T = unknown>(method: "GET" | "POST" | "PUT" | "PATCH", path: string, data?: unknown): Promise<T>;
}

/**
 * Registers the file's beforeAll (server, browser, page, API client, onboarding), afterAll (all of it
 * stopped) and afterEach (a failed test shows its pages), and answers the context they fill: read its
 * fields inside tests and hooks, not at the top of the file.
 */
export function useBrowserSuite(options: BrowserSuiteOptions = {}): BrowserSuite {
  const shown: { page: Page; who: string }[] = [];
  const suite = {
    apiKey: "",
    async newPage(who: string) {
      const page = await newPage(suite.browser);
      shown.push({ page, who });
      return page;
    },
    async incoming(customData: Record<string, unknown>) {
      const res = await suite.api.post(`/v1/incoming_custom_channel_message?apiKey=${suite.apiKey}`, {
        data: { customData },
      });
      expect(res.status(), await res.text()).toBe(200);
      return (await res.json()) as { messageId: string };
    },
    async v1<T>(method: string, path: string, data?: unknown): Promise<T> {
      const res = await suite.api.fetch(path, {
        method,
        headers: { "x-api-key": suite.apiKey },
        ...(data === undefined ? {} : { data }),
      });
      expect(res.status(), await res.text()).toBeLessThan(300);
      return (await res.json()) as T;
    },
  } as BrowserSuite;

  beforeAll(async () => {
    const env = typeof options.env === "function" ? options.env() : options.env;
    const [parley, browser, receiver] = await Promise.all([
      startParley(env),
      launchBrowser(),
      options.receiver ? startReceiver() : undefined,
    ]);
    Object.assign(suite, { parley, browser, receiver });
    suite.page = await newPage(suite.browser);
    shown.push({ page: suite.page, who: "" });
    if (options.permissions) {
      await suite.page.context().grantPermissions(options.permissions, { origin: suite.parley.url });
    }
    suite.api = await apiClient(suite.parley.url);
    if (options.business) suite.apiKey = await onboardWithKey(suite.page, suite.parley.url, options.business);
    if (options.receiver === "saved") await saveWebhookUrl(suite.page, suite.receiver.url);
  });
  afterAll(async () => {
    await suite.api?.dispose();
    await suite.browser?.close();
    await suite.parley?.stop();
    await suite.receiver?.close();
  });
  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== "fail") return;
    for (const { page, who } of shown) {
      await showFailure(page, who ? `${ctx.task.name} (${who})` : ctx.task.name);
    }
  });
  return suite;
}
