// "Suggest other ways to ask", end to end: an owner opens a campaign whose bot has an LLM (a local
// OpenAI-compatible stand-in), asks for other ways to ask a knowledge entry's question, keeps two of
// the proposals, saves the campaign, and finds them among the entry's other ways to ask after a
// reload. Against a real `parley serve` on SQLite and Chromium.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LlmStub, startLlmStub, textOf } from "../../server/test/llm-stub.ts";
import { expectAccessible, screenshot, useBrowserSuite } from "./harness.ts";

const QUESTION = "Do you deliver?";
const ANSWER = "Yes, within 10 miles, free over £20.";
const KNOWN = "Can you bring it to my house?";
const PROPOSALS = [
  "do u deliver to my area",
  "Can I get my order delivered?",
  "can you bring it to my house", // the entry has it already: not offered
  "Do you do home delivery?",
  "Is there delivery or do I have to pick up?",
];

describe.skipIf(Boolean(process.env.DATABASE_URL))("Suggest other ways to ask on the campaign page", () => {
  let llm: LlmStub;
  let campaignId = "";

  beforeAll(async () => {
    llm = await startLlmStub();
    llm.respond = (req) => {
      const system = textOf(req.body.messages.find((m) => m.role === "system")?.content ?? null);
      return system.includes("other ways a real customer might ask")
        ? { content: JSON.stringify(PROPOSALS) }
        : { content: "stub answer" };
    };
  });
  afterAll(async () => {
    await llm?.close();
  });
  const suite = useBrowserSuite({
    env: () => ({ LLM_BASE_URL: llm.baseUrl, LLM_MODEL: "stub-model" }),
    business: "Ola's Bakery",
  });
  const entry = (n: number) => suite.page.getByRole("group", { name: `Knowledge entry ${n}` });
  const dialog = () => suite.page.getByRole("dialog", { name: "Other ways to ask" });

  beforeAll(async () => {
    const campaigns = await suite.v1<{ data: { id: string; isDefault: boolean }[] }>("GET", "/v1/campaigns");
    campaignId = campaigns.data.find((c) => c.isDefault)?.id ?? "";
    await suite.v1("PATCH", `/v1/campaigns/${campaignId}`, {
      knowledge: [
        { question: QUESTION, answer: ANSWER, alternatives: [KNOWN] },
        { text: "Ola's Bakery bakes sourdough every morning." },
      ],
    });
  });

  it("keeps two of the LLM's proposals as other ways to ask, saved with the campaign", async () => {
    const page = suite.page;
    await page.goto(`${suite.parley.url}/campaigns/${campaignId}`);
    await entry(1).getByRole("textbox", { name: "Entry 1: question" }).waitFor();
    // Free text has no question to rephrase.
    expect(await entry(2).getByRole("button", { name: "Suggest other ways to ask" }).count()).toBe(0);

    await entry(1).getByRole("button", { name: "Suggest other ways to ask" }).click();
    await dialog().getByRole("checkbox", { name: PROPOSALS[0]! }).waitFor();
    // Proposals only: the one the entry has is not offered, and none is ticked.
    const offered = dialog().getByRole("checkbox");
    expect(await offered.count()).toBe(4);
    expect(await dialog().getByRole("checkbox", { name: PROPOSALS[2]!, exact: true }).count()).toBe(0);
    for (let i = 0; i < 4; i++) expect(await offered.nth(i).isChecked()).toBe(false);
    const keepButton = dialog().getByRole("button", { name: "Keep selected" });
    expect(await keepButton.isDisabled()).toBe(true);
    // The stand-in was asked for phrasings of that question.
    expect(llm.requests).toHaveLength(1);
    expect(textOf(llm.requests[0]!.body.messages.at(-1)!.content)).toContain(`Question: ${QUESTION}`);
    await expectAccessible(page, "campaign: Other ways to ask");
    await screenshot(page, "campaign-other-ways-to-ask", { fullPage: false });

    await dialog().getByRole("checkbox", { name: PROPOSALS[1]! }).check();
    await dialog().getByRole("checkbox", { name: PROPOSALS[3]! }).check();
    await keepButton.click();
    await dialog().waitFor({ state: "detached" });
    // In the draft: nothing stored until the campaign is saved.
    await entry(1).getByText(PROPOSALS[1]!, { exact: true }).waitFor();
    const before = await suite.v1<{ knowledge: { alternatives?: string[] }[] }>(
      "GET",
      `/v1/campaigns/${campaignId}`,
    );
    expect(before.knowledge[0]?.alternatives).toEqual([KNOWN]);

    await page.getByRole("button", { name: "Save campaign" }).click();
    await page.getByText("Campaign saved").waitFor();

    await page.reload();
    await entry(1).getByRole("textbox", { name: "Entry 1: question" }).waitFor();
    for (const kept of [KNOWN, PROPOSALS[1]!, PROPOSALS[3]!]) {
      await entry(1).getByText(kept, { exact: true }).waitFor();
    }
    expect(await entry(1).getByText(PROPOSALS[0]!, { exact: true }).count()).toBe(0);
    const saved = await suite.v1<{ knowledge: { alternatives?: string[] }[] }>(
      "GET",
      `/v1/campaigns/${campaignId}`,
    );
    expect(saved.knowledge[0]?.alternatives).toEqual([KNOWN, PROPOSALS[1], PROPOSALS[3]]);
  });

  it("asks to save a new entry first", async () => {
    const page = suite.page;
    await page.getByRole("button", { name: "Add question and answer" }).click();
    await entry(3).getByRole("textbox", { name: "Entry 3: question" }).fill("Do you bake gluten-free bread?");
    expect(await entry(3).getByRole("button", { name: "Suggest other ways to ask" }).isDisabled()).toBe(true);
    await entry(3).getByText("Save the campaign first to get suggestions for this question.").waitFor();
  });
});
