// "Forgot password" end to end: from the sign-in page a person asks for a link, reads it from the
// e-mail a local SMTP server received, sets a new password on the page it opens, and signs in with it;
// the old password fails, the session open elsewhere ended, and the used link says so and offers a new
// one. Against a real `parley serve` on SQLite with SMTP_URL pointing at the stand-in, and Chromium.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SmtpStandIn, startSmtpStandIn } from "../../server/test/stand-ins/smtp.ts";
import { expectAccessible, screenshot, useBrowserSuite } from "./harness.ts";

const OWNER_EMAIL = "owner@reset-bakery.test";
const OLD_PASSWORD = "a long enough password";
const NEW_PASSWORD = "a fresh and longer passphrase";

describe.skipIf(Boolean(process.env.DATABASE_URL))("password reset", () => {
  let smtp: SmtpStandIn;
  beforeAll(async () => {
    smtp = await startSmtpStandIn();
  });
  afterAll(async () => {
    await smtp?.close();
  });
  /** Its page is signed in since onboarding: its session ends with the reset. */
  const suite = useBrowserSuite({
    env: () => ({ SMTP_URL: smtp.url, SMTP_FROM: "Reset Bakery <parley@reset-bakery.test>" }),
    business: "Reset Bakery",
  });
  /** A fresh browser where the person forgot their password. */
  let page: Page;
  let link = "";

  beforeAll(async () => {
    page = await suite.newPage("forgot password");
  });

  it("asks for a link from the sign-in page and gets it by e-mail", async () => {
    await page.goto(`${suite.parley.url}/signin`);
    await page.getByLabel("Email").fill(OWNER_EMAIL);
    await page.getByRole("link", { name: "Forgot password?" }).click();
    await page.getByRole("heading", { name: "Reset your password" }).waitFor();
    // The address typed on the sign-in page came along.
    expect(await page.getByLabel("E-mail").inputValue()).toBe(OWNER_EMAIL);
    await expectAccessible(page, "forgot password");
    await screenshot(page, "forgot-password");
    await page.getByRole("button", { name: "Send reset link" }).click();
    await page.getByRole("heading", { name: "Check your e-mail" }).waitFor();
    await page.getByText(OWNER_EMAIL).waitFor();
    await expectAccessible(page, "forgot password: check your e-mail");

    const mail = await smtp.waitFor((m) => m.to.includes(OWNER_EMAIL));
    expect(mail.subject).toBe("Reset your Parley password");
    expect(mail.from).toBe("parley@reset-bakery.test");
    link = /https:\/\/\S+\/reset-password\/[\w-]+/.exec(mail.text)?.[0] ?? "";
    expect(link.startsWith(`${suite.parley.url}/reset-password/`)).toBe(true);
  });

  it("sets a new password through the link, then signs in with it (not with the old one)", async () => {
    await page.goto(link);
    await page.getByRole("heading", { name: "Choose a new password" }).waitFor();
    expect(await page.getByLabel("E-mail").inputValue()).toBe(OWNER_EMAIL);
    const newPassword = page.getByLabel(/^New password/);
    const confirm = page.getByLabel("Confirm new password");
    // Two different entries: said at the second field, nothing sent.
    await newPassword.fill(NEW_PASSWORD);
    await confirm.fill("something else entirely");
    await page.getByRole("button", { name: "Set new password" }).click();
    await page.getByText("The two passwords are not the same").waitFor();
    await expectAccessible(page, "reset password: passwords differ");
    await confirm.fill(NEW_PASSWORD);
    // Typing again clears the complaint.
    expect(await page.getByText("The two passwords are not the same").count()).toBe(0);
    await screenshot(page, "reset-password");
    await page.getByRole("button", { name: "Set new password" }).click();
    await page.getByRole("heading", { name: "Your password is set" }).waitFor();
    await expectAccessible(page, "reset password: done");

    await page.getByRole("link", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Sign in to Parley" }).waitFor();
    expect(await page.getByLabel("Email").inputValue()).toBe(OWNER_EMAIL);
    await page.getByLabel(/^Password/).fill(OLD_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").getByText("The e-mail address or the password is wrong").waitFor();
    await page.getByLabel(/^Password/).fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/dashboard$/);
  });

  it("ended the session that was open elsewhere", async () => {
    await suite.page.reload();
    await suite.page.waitForURL(/\/signin/);
    await suite.page.getByRole("heading", { name: "Sign in to Parley" }).waitFor();
  });

  it("refuses the used link with a clear message and a way to ask again", async () => {
    await page.goto(link);
    await page.getByRole("heading", { name: "This link cannot be used" }).waitFor();
    await page.getByText("This link has expired or was already used").waitFor();
    await expectAccessible(page, "reset password: used link");
    await page.getByRole("link", { name: "Ask for a new link" }).click();
    await page.getByRole("heading", { name: "Reset your password" }).waitFor();
  });
});
