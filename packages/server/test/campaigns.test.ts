// Campaign CRUD (/v1/campaigns), its validation, the one default per account, and
// `parley campaign create` run as a real child process against the same database.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { botModule } from "../src/modules/bot/index.ts";
import { errorCode, json, startTestApp, type TestApp } from "./helpers.ts";
import { cliEnv, oneJsonLine, runCli } from "./process-helpers.ts";

interface CampaignJson {
  id: string;
  name: string;
  status: string;
  instructions: string;
  knowledge?: { question?: string; answer?: string; text?: string; alternatives?: string[] }[];
  knowledgeCount: number;
  keywords: string[];
  fallbackMessage: string;
  engine: string;
  model: string | null;
  isDefault: boolean;
  createdAt: string;
  updatedAt: string;
}

interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

describe("campaigns", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const req = (apiKey: string, method: "GET" | "POST" | "PATCH" | "DELETE", url: string, payload?: unknown) =>
    t.inject({
      method,
      url: `${url}${url.includes("?") ? "&" : "?"}apiKey=${apiKey}`,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  async function list(apiKey: string, query = ""): Promise<Page<CampaignJson>> {
    const res = await req(apiKey, "GET", `/v1/campaigns${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return json<Page<CampaignJson>>(res);
  }

  async function create(apiKey: string, body: Record<string, unknown>): Promise<CampaignJson> {
    const res = await req(apiKey, "POST", "/v1/campaigns", body);
    expect(res.statusCode, res.body).toBe(201);
    return json<CampaignJson>(res);
  }

  it("every account starts with a live default campaign (auto engine, empty knowledge, polite fallback)", async () => {
    const acc = await t.account();
    const page = await list(acc.apiKey);
    expect(page.data).toHaveLength(1);
    expect(page.data[0]).toMatchObject({
      name: "Default",
      status: "live",
      engine: "auto",
      knowledgeCount: 0,
      keywords: [],
      isDefault: true,
      fallbackMessage: "Thanks for your message! A team member will reply shortly.",
    });
    expect(page.data[0]!.id).toMatch(/^cmp_/);
  });

  it("creates a campaign (201) with defaults, trimmed fields and de-duplicated keywords", async () => {
    const acc = await t.account();
    const c = await create(acc.apiKey, {
      name: "  Spring sale ",
      keywords: ["Sale", "sale", " discount "],
      knowledge: [
        { question: " Do you have a sale? ", answer: "Yes, 20% off." },
        { text: "All bikes come with a 2-year warranty." },
      ],
    });
    expect(c).toMatchObject({
      name: "Spring sale",
      status: "draft",
      engine: "auto",
      model: null,
      isDefault: false,
      instructions: "",
      keywords: ["Sale", "discount"],
      knowledgeCount: 2,
      knowledge: [
        { question: "Do you have a sale?", answer: "Yes, 20% off." },
        { text: "All bikes come with a 2-year warranty." },
      ],
      fallbackMessage: "Thanks for your message! A team member will reply shortly.",
    });
    const got = await req(acc.apiKey, "GET", `/v1/campaigns/${c.id}`);
    expect(got.statusCode).toBe(200);
    expect(json(got)).toEqual(c);
  });

  const invalid: [string, Record<string, unknown>, RegExp][] = [
    ["a missing name", {}, /name is required/],
    ["a blank name", { name: "   " }, /name must not be empty/],
    ["a 201-character name", { name: "x".repeat(201) }, /name must be at most 200/],
    ["an unknown status", { name: "n", status: "running" }, /status/],
    ["an unknown engine", { name: "n", engine: "gpt" }, /engine/],
    [
      "a knowledge entry with a question but no answer",
      { name: "n", knowledge: [{ question: "q" }] },
      /knowledge\[0\]/,
    ],
    [
      "a knowledge entry with both shapes",
      { name: "n", knowledge: [{ question: "q", answer: "a", text: "t" }] },
      /not both/,
    ],
    ["an empty knowledge entry", { name: "n", knowledge: [{ text: "  " }] }, /knowledge\[0\]/],
    ["a non-object knowledge entry", { name: "n", knowledge: ["just text"] }, /knowledge/],
    [
      "a 5,001-character answer",
      { name: "n", knowledge: [{ question: "q", answer: "a".repeat(5001) }] },
      /5000/,
    ],
    [
      "501 knowledge entries",
      { name: "n", knowledge: Array.from({ length: 501 }, (_, i) => ({ text: `t${i}` })) },
      /500/,
    ],
    ["a blank keyword", { name: "n", keywords: ["ok", " "] }, /keywords\[1\]/],
    ["51 keywords", { name: "n", keywords: Array.from({ length: 51 }, (_, i) => `k${i}`) }, /50/],
    ["a number as name", { name: 42 }, /name must be string/],
    ["a blank fallback message", { name: "n", fallbackMessage: " " }, /fallbackMessage/],
    [
      "alternatives on a text entry",
      {
        name: "n",
        knowledge: [
          { question: "q", answer: "a" },
          { text: "t", alternatives: ["other"] },
        ],
      },
      /knowledge\[1\]\.alternatives is only allowed on a \{question, answer\} entry/,
    ],
    [
      "alternatives without an answer",
      { name: "n", knowledge: [{ question: "q", alternatives: ["other"] }] },
      /knowledge\[0\] needs a non-empty question and answer/,
    ],
    [
      "21 alternatives",
      {
        name: "n",
        knowledge: [
          { question: "q", answer: "a", alternatives: Array.from({ length: 21 }, (_, i) => `q${i}`) },
        ],
      },
      /knowledge\.0\.alternatives .*20/,
    ],
    [
      "a 1,001-character alternative",
      { name: "n", knowledge: [{ question: "q", answer: "a", alternatives: ["ok", "x".repeat(1001)] }] },
      /knowledge\.0\.alternatives\.1 must be at most 1000 characters/,
    ],
    [
      "a non-string alternative",
      { name: "n", knowledge: [{ question: "q", answer: "a", alternatives: ["ok", 7] }] },
      /knowledge\.0\.alternatives\.1 must be string/,
    ],
    [
      "alternatives that are not a list",
      { name: "n", knowledge: [{ question: "q", answer: "a", alternatives: "other words" }] },
      /knowledge\.0\.alternatives must be array/,
    ],
  ];

  it.each(invalid)("refuses %s with 400 and changes nothing", async (_label, body, message) => {
    const acc = await t.account();
    const res = await req(acc.apiKey, "POST", "/v1/campaigns", body);
    expect(res.statusCode).toBe(400);
    const err = json<{ error: { code: string; message: string } }>(res).error;
    expect(err.code).toBe("VALIDATION_ERROR");
    expect(err.message).toMatch(message);
    expect((await list(acc.apiKey)).data).toHaveLength(1);
  });

  it("stores and returns alternatives: trimmed, blanks and repeats (and copies of the question) dropped", async () => {
    const acc = await t.account();
    const c = await create(acc.apiKey, {
      name: "Workshop",
      knowledge: [
        {
          question: "Do you fix bikes?",
          answer: "Yes, all kinds.",
          alternatives: [
            " Can you repair my bike? ",
            "",
            "can you REPAIR my bike?",
            "do you fix bikes?",
            "Tune-ups?",
          ],
        },
        { question: "Where are you?", answer: "1 High Street.", alternatives: ["  ", ""] },
        { text: "We open at 9." },
        {
          question: "Parking?",
          answer: "Behind the shop.",
          alternatives: Array.from({ length: 20 }, (_, i) => `p${i}`),
        },
      ],
    });
    const expected = [
      {
        question: "Do you fix bikes?",
        answer: "Yes, all kinds.",
        alternatives: ["Can you repair my bike?", "Tune-ups?"],
      },
      { question: "Where are you?", answer: "1 High Street." },
      { text: "We open at 9." },
      {
        question: "Parking?",
        answer: "Behind the shop.",
        alternatives: Array.from({ length: 20 }, (_, i) => `p${i}`),
      },
    ];
    expect(c.knowledge).toEqual(expected);
    expect(c.knowledgeCount).toBe(4);
    expect(json<CampaignJson>(await req(acc.apiKey, "GET", `/v1/campaigns/${c.id}`)).knowledge).toEqual(
      expected,
    );

    // PATCH replaces the knowledge, alternatives included; a refused PATCH changes nothing
    const patched = await req(acc.apiKey, "PATCH", `/v1/campaigns/${c.id}`, {
      knowledge: [{ question: "Q?", answer: "A.", alternatives: ["Other way to ask?"] }],
    });
    expect(patched.statusCode, patched.body).toBe(200);
    const stored = [{ question: "Q?", answer: "A.", alternatives: ["Other way to ask?"] }];
    expect(json<CampaignJson>(patched).knowledge).toEqual(stored);
    for (const knowledge of [
      [{ question: "Q?", answer: "A.", alternatives: Array.from({ length: 21 }, (_, i) => `a${i}`) }],
      [{ text: "T.", alternatives: ["x"] }],
    ]) {
      const bad = await req(acc.apiKey, "PATCH", `/v1/campaigns/${c.id}`, { name: "Renamed", knowledge });
      expect(bad.statusCode).toBe(400);
      expect(json<{ error: { code: string; message: string } }>(bad).error).toMatchObject({
        code: "VALIDATION_ERROR",
        message: expect.stringMatching(/knowledge(\.0\.|\[0\]\.)alternatives/),
      });
      const after = json<CampaignJson>(await req(acc.apiKey, "GET", `/v1/campaigns/${c.id}`));
      expect(after.name).toBe("Workshop");
      expect(after.knowledge).toEqual(stored);
    }
  });

  it("accepts 500 knowledge entries", async () => {
    const acc = await t.account();
    const knowledge = Array.from({ length: 500 }, (_, i) => ({
      question: `Question ${i}?`,
      answer: "a".repeat(2000),
    }));
    const c = await create(acc.apiKey, { name: "Big", knowledge });
    expect(c.knowledgeCount).toBe(500);
  });

  it("lists oldest first with cursor pagination, summaries without knowledge, filtered by status", async () => {
    const acc = await t.account();
    const a = await create(acc.apiKey, { name: "A", status: "live", knowledge: [{ text: "x" }] });
    const b = await create(acc.apiKey, { name: "B" });
    const first = await list(acc.apiKey, "?limit=2");
    expect(first.data.map((c) => c.name)).toEqual(["Default", "A"]);
    expect(first.data[1]).not.toHaveProperty("knowledge");
    expect(first.data[1]!.knowledgeCount).toBe(1);
    expect(first.hasMore).toBe(true);
    const second = await list(acc.apiKey, `?limit=2&cursor=${first.nextCursor}`);
    expect(second.data.map((c) => c.id)).toEqual([b.id]);
    expect(second.hasMore).toBe(false);
    expect((await list(acc.apiKey, "?status=live")).data.map((c) => c.name)).toEqual(["Default", a.name]);
    expect((await list(acc.apiKey, "?status=draft")).data.map((c) => c.id)).toEqual([b.id]);
    const bad = await req(acc.apiKey, "GET", "/v1/campaigns?cursor=nonsense");
    expect(bad.statusCode).toBe(400);
  });

  it("updates partially (PATCH) and validates like create", async () => {
    const acc = await t.account();
    const c = await create(acc.apiKey, { name: "Orig", keywords: ["a"], instructions: "Be brief." });
    const res = await req(acc.apiKey, "PATCH", `/v1/campaigns/${c.id}`, {
      status: "live",
      engine: "builtin",
      model: "llama3.1",
      knowledge: [{ question: "Q?", answer: "A." }],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toMatchObject({
      name: "Orig",
      instructions: "Be brief.",
      keywords: ["a"],
      status: "live",
      engine: "builtin",
      model: "llama3.1",
      knowledge: [{ question: "Q?", answer: "A." }],
    });
    const cleared = await req(acc.apiKey, "PATCH", `/v1/campaigns/${c.id}`, { model: null, keywords: [] });
    expect(json(cleared)).toMatchObject({ model: null, keywords: [] });
    const bad = await req(acc.apiKey, "PATCH", `/v1/campaigns/${c.id}`, {
      status: "live",
      knowledge: [{ answer: "no q" }],
    });
    expect(bad.statusCode).toBe(400);
    expect(json<CampaignJson>(await req(acc.apiKey, "GET", `/v1/campaigns/${c.id}`)).knowledge).toEqual([
      { question: "Q?", answer: "A." },
    ]);
  });

  it("moves the default flag: one default per account, and the default cannot be unset or deleted", async () => {
    const acc = await t.account();
    const oldDefault = (await list(acc.apiKey)).data[0]!;
    const fresh = await create(acc.apiKey, { name: "New default", status: "live", isDefault: true });
    expect(fresh.isDefault).toBe(true);
    let all = (await list(acc.apiKey)).data;
    expect(all.filter((c) => c.isDefault).map((c) => c.id)).toEqual([fresh.id]);

    const back = await req(acc.apiKey, "PATCH", `/v1/campaigns/${oldDefault.id}`, { isDefault: true });
    expect(json(back)).toMatchObject({ isDefault: true });
    all = (await list(acc.apiKey)).data;
    expect(all.filter((c) => c.isDefault).map((c) => c.id)).toEqual([oldDefault.id]);

    const unset = await req(acc.apiKey, "PATCH", `/v1/campaigns/${oldDefault.id}`, {
      isDefault: false,
      name: "X",
    });
    expect(unset.statusCode).toBe(409);
    expect(errorCode(unset)).toBe("CAMPAIGN_IS_DEFAULT");
    const del = await req(acc.apiKey, "DELETE", `/v1/campaigns/${oldDefault.id}`);
    expect(del.statusCode).toBe(409);
    expect(errorCode(del)).toBe("CAMPAIGN_IS_DEFAULT");
    expect(json<CampaignJson>(await req(acc.apiKey, "GET", `/v1/campaigns/${oldDefault.id}`)).name).toBe(
      "Default",
    );
  });

  it("concurrent 'make default' requests leave exactly one default", async () => {
    const acc = await t.account();
    const ids = await Promise.all(
      ["a", "b", "c", "d"].map(async (name) => (await create(acc.apiKey, { name })).id),
    );
    const results = await Promise.all(
      ids.map((id) => req(acc.apiKey, "PATCH", `/v1/campaigns/${id}`, { isDefault: true })),
    );
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
    expect((await list(acc.apiKey)).data.filter((c) => c.isDefault)).toHaveLength(1);
  });

  it("deletes a campaign (then 404) and never shows or touches another account's campaigns", async () => {
    const acc = await t.account();
    const other = await t.account();
    const c = await create(acc.apiKey, { name: "Temp" });
    for (const [method, body] of [
      ["GET", undefined],
      ["PATCH", { name: "hijack" }],
      ["DELETE", undefined],
    ] as const) {
      const res = await req(other.apiKey, method, `/v1/campaigns/${c.id}`, body);
      expect(res.statusCode).toBe(404);
      expect(errorCode(res)).toBe("CAMPAIGN_NOT_FOUND");
    }
    expect((await list(other.apiKey)).data.map((x) => x.id)).not.toContain(c.id);
    const del = await req(acc.apiKey, "DELETE", `/v1/campaigns/${c.id}`);
    expect(del.statusCode).toBe(200);
    expect(json(del)).toEqual({ id: c.id, deleted: true });
    expect((await req(acc.apiKey, "GET", `/v1/campaigns/${c.id}`)).statusCode).toBe(404);
    expect((await req(acc.apiKey, "DELETE", `/v1/campaigns/${c.id}`)).statusCode).toBe(404);
  });

  it("requires the API key", async () => {
    const res = await t.inject({ method: "GET", url: "/v1/campaigns" });
    expect(res.statusCode).toBe(401);
  });

  describe("parley campaign create", () => {
    let env: NodeJS.ProcessEnv;
    let dir: string;
    let email: string;
    let apiKey: string;

    beforeAll(async () => {
      env = cliEnv(t.database);
      dir = fs.mkdtempSync(path.join(t.database.dataDir, "kb-"));
      email = `cli-${Date.now()}@example.com`;
      apiKey = (await t.account({ email })).apiKey;
    });

    const file = (name: string, content: string) => {
      const p = path.join(dir, name);
      fs.writeFileSync(p, content);
      return p;
    };

    it("creates a campaign from a knowledge file and prints {campaignId}", async () => {
      const kb = file(
        "kb.json",
        JSON.stringify([
          { question: "Do you repair bikes?", answer: "Yes, all kinds." },
          { text: "We are at 1 High Street." },
        ]),
      );
      const out = oneJsonLine<{ campaignId: string }>(
        await runCli(
          [
            "campaign",
            "create",
            "--email",
            email,
            "--name",
            "Workshop",
            "--default",
            "--status",
            "live",
            "--keywords",
            "repair, service",
            "--knowledge",
            kb,
            "--fallback",
            "A mechanic will answer soon.",
            "--engine",
            "builtin",
          ],
          env,
        ),
      );
      expect(Object.keys(out)).toEqual(["campaignId"]);
      expect(out.campaignId).toMatch(/^cmp_/);
      const res = await req(apiKey, "GET", `/v1/campaigns/${out.campaignId}`);
      expect(json(res)).toMatchObject({
        name: "Workshop",
        status: "live",
        isDefault: true,
        engine: "builtin",
        keywords: ["repair", "service"],
        fallbackMessage: "A mechanic will answer soon.",
        knowledge: [
          { question: "Do you repair bikes?", answer: "Yes, all kinds." },
          { text: "We are at 1 High Street." },
        ],
      });
      expect((await list(apiKey)).data.filter((c) => c.isDefault).map((c) => c.id)).toEqual([out.campaignId]);
    });

    it("defaults to a draft that is not the default", async () => {
      const out = oneJsonLine<{ campaignId: string }>(
        await runCli(["campaign", "create", "--email", email, "--name", "Later"], env),
      );
      expect(json(await req(apiKey, "GET", `/v1/campaigns/${out.campaignId}`))).toMatchObject({
        status: "draft",
        isDefault: false,
        engine: "auto",
        knowledge: [],
      });
    });

    // As an operator runs it: a child process, the message on stderr, a non-zero exit.
    const bad: [string, () => string[], RegExp][] = [
      [
        "a missing file",
        () => ["--knowledge", path.join(dir, "nope.json")],
        /cannot read --knowledge file .*no such file/,
      ],
      ["invalid JSON", () => ["--knowledge", file("broken.json", "[{question: 1}")], /not valid JSON/],
      [
        "an entry without an answer",
        () => ["--knowledge", file("half.json", '[{"question":"q","answer":"a"},{"question":"only"}]')],
        /entry\[1\]/,
      ],
    ];

    it.each(bad)(
      "refuses %s on stderr with a non-zero exit and creates nothing",
      async (_l, extra, message) => {
        const before = (await list(apiKey)).data.length;
        const res = await runCli(["campaign", "create", "--email", email, "--name", "Bad", ...extra()], env);
        expect(res.code).not.toBe(0);
        expect(res.stdout).toBe("");
        expect(res.stderr).toMatch(message);
        expect((await list(apiKey)).data).toHaveLength(before);
      },
    );

    // The same command in-process (child processes are slow to start): the error the CLI prints.
    const refused: [string, Record<string, string | boolean>, RegExp][] = [
      ["a JSON object instead of an array", { knowledge: "obj.json" }, /JSON array/],
      ["an unknown engine", { engine: "gpt" }, /--engine must be one of auto, builtin, llm/],
      ["an unknown status", { status: "on" }, /--status must be one of draft, live, paused/],
      ["an unknown account", { email: "nobody@example.com" }, /no account/],
      ["a missing name", { name: "" }, /--name is required/],
      ["a 201-character name", { name: "n".repeat(201) }, /name must be at most 200/],
    ];

    it("reads alternatives from the knowledge file, and names a bad one", async () => {
      const command = botModule.commands?.["campaign create"];
      if (!command) throw new Error("campaign create is not registered");
      const kb = file(
        "alt.json",
        JSON.stringify([
          { question: "Do you repair bikes?", answer: "Yes.", alternatives: ["Can you fix my bike?"] },
        ]),
      );
      const out = (await command.run({ email, name: "Alt", knowledge: kb }, t.parley.ctx)) as {
        campaignId: string;
      };
      expect(
        json<CampaignJson>(await req(apiKey, "GET", `/v1/campaigns/${out.campaignId}`)).knowledge,
      ).toEqual([
        { question: "Do you repair bikes?", answer: "Yes.", alternatives: ["Can you fix my bike?"] },
      ]);
      const before = (await list(apiKey)).data.length;
      const bad = file(
        "alt-bad.json",
        JSON.stringify([
          { question: "q", answer: "a" },
          { question: "q2", answer: "a2", alternatives: ["fine", { not: "a string" }] },
        ]),
      );
      await expect(command.run({ email, name: "Bad", knowledge: bad }, t.parley.ctx)).rejects.toThrow(
        /entry\[1\]\.alternatives\[1\] must be string/,
      );
      expect((await list(apiKey)).data).toHaveLength(before);
    });

    it.each(refused)("refuses %s", async (_l, values, message) => {
      file("obj.json", '{"question":"q"}');
      const command = botModule.commands?.["campaign create"];
      if (!command) throw new Error("campaign create is not registered");
      const before = (await list(apiKey)).data.length;
      const merged: Record<string, string | boolean> = { email, name: "Bad", ...values };
      if (typeof merged.knowledge === "string") merged.knowledge = path.join(dir, merged.knowledge);
      await expect(command.run(merged, t.parley.ctx)).rejects.toThrow(message);
      expect((await list(apiKey)).data).toHaveLength(before);
    });
  });
});
