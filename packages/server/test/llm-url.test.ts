// The LLM base URL (parley account set --llm-base-url) is validated like the webhook URLs: no
// credentials in it, no loopback, link-local or private address unless OUTBOUND_ALLOW_CIDRS allows
// it, plain http only inside that allowance.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountsModule } from "../src/modules/accounts/index.ts";
import { startTestApp, type TestApp, uniqueEmail } from "./helpers.ts";

describe("--llm-base-url", () => {
  let t: TestApp;
  beforeAll(async () => {
    // Production settings: nothing on the machine's own networks is allowed.
    t = await startTestApp({ OUTBOUND_ALLOW_CIDRS: "" });
  });
  afterAll(() => t.close());

  const set = async (email: string, url: string) =>
    accountsModule.commands!["account set"]!.run({ email, "llm-base-url": url }, t.parley.ctx);

  it.each([
    ["loopback", "http://127.0.0.1:11434/v1"],
    ["loopback over https", "https://127.0.0.1/v1"],
    ["link-local (cloud metadata)", "https://169.254.169.254/latest"],
    ["a private network", "https://10.0.0.5/v1"],
    ["IPv6 loopback", "https://[::1]/v1"],
    ["credentials in the URL", "https://user:secret@llm.example.com/v1"],
    ["plain http on the internet", "http://llm.example.com/v1"],
    ["another scheme", "ftp://llm.example.com/v1"],
  ])("refuses %s and leaves the setting unchanged", async (_what, url) => {
    const acc = await t.account();
    const email = (
      await t.parley.db.kysely
        .selectFrom("accounts")
        .select("email")
        .where("id", "=", acc.accountId)
        .executeTakeFirstOrThrow()
    ).email;
    await expect(set(email, url)).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
    const row = await t.parley.db.kysely
      .selectFrom("accounts")
      .select("llm_base_url")
      .where("id", "=", acc.accountId)
      .executeTakeFirstOrThrow();
    expect(row.llm_base_url).toBeNull();
  });

  it("accepts a public https endpoint, and none clears it", async () => {
    const email = uniqueEmail("llm");
    await t.account({ email });
    expect(await set(email, "https://api.openai.com/v1")).toMatchObject({
      llm: { baseUrl: "https://api.openai.com/v1" },
    });
    expect(await set(email, "none")).toMatchObject({ llm: { baseUrl: null } });
  });
});
