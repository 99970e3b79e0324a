// CSV contact imports: the upload is checked (UTF-8, a header, no row longer than it), rows are
// validated like POST /v1/contacts, created or updated in slices by a background job with the
// progress recorded, rejected rows downloadable; the same file twice creates nothing new; the CLI
// prints its progress on stderr and one JSON line on stdout.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedAccount } from "../src/modules/accounts/service.ts";
import { SLICE_ROWS } from "../src/modules/imports/service.ts";
import { callWithKey, errorCode, freshDatabase, json, startTestApp, type TestApp } from "./helpers.ts";
import { cliEnv, oneJsonLine, runCli } from "./process-helpers.ts";

interface Imp {
  importId: string;
  status: string;
  total: number;
  done: number;
  created: number;
  updated: number;
  unchanged: number;
  rejected: number;
}

/** 5,000 rows: most valid, every 10th without a country code, every 25th e-mail only, labels on some. */
function bigCsv(rows = 5000): string {
  const lines = ["First name,Last name,Phone number,Email,Tags"];
  for (let i = 0; i < rows; i++) {
    const phone =
      i % 10 === 3
        ? `415555${String(i).padStart(4, "0")}`
        : i % 25 === 0
          ? ""
          : `+1415555${String(i).padStart(4, "0")}`;
    const email = i % 25 === 0 ? `only-${i}@example.com` : "";
    lines.push(`Person,"Number ${i}",${phone},${email},${i % 2 ? "vip;2026" : ""}`);
  }
  return `${lines.join("\n")}\n`;
}

describe("contact imports", () => {
  let t: TestApp;
  let acc: CreatedAccount;
  const upload = (csv: string | Buffer, query = "", key?: string) =>
    t.inject({
      method: "POST",
      url: `/v1/contacts/imports?apiKey=${key ?? acc.apiKey}${query}`,
      headers: { "content-type": "text/csv" },
      payload: csv,
    });
  const get = async (id: string) =>
    json<Imp>(await callWithKey(t, "GET", `/v1/contacts/imports/${id}`, acc.apiKey));

  beforeAll(async () => {
    t = await startTestApp();
    acc = await t.account();
  });
  afterAll(async () => t?.close());

  it("imports 5,000 rows in slices, adds them to the list, reports rejections; the same file again creates nothing", async () => {
    const list = json<{ id: string }>(
      await callWithKey(t, "POST", "/v1/lists", acc.apiKey, { name: "Imported" }),
    );
    const csv = bigCsv();
    const res = await upload(csv, `&listId=${list.id}`);
    expect(res.statusCode, res.body).toBe(202);
    const created = json<Imp & { mapping: Record<string, string> }>(res);
    expect(created).toMatchObject({ status: "running", total: 5000, done: 0 });
    expect(created.mapping).toEqual({
      "First name": "firstName",
      "Last name": "lastName",
      "Phone number": "phone",
      Email: "email",
      Tags: "labels",
    });
    // One slice: its progress and the next slice's job were committed together.
    await t.parley.worker.drain(1);
    const partway = await get(created.importId);
    expect(partway).toMatchObject({ status: "running", done: SLICE_ROWS });
    const next = await t.parley.db.kysely
      .selectFrom("jobs")
      .select("id")
      .where("type", "=", "contacts.import")
      .where("subject_id", "=", created.importId)
      .execute();
    expect(next).toHaveLength(1);
    await t.parley.worker.drain();
    const done = await get(created.importId);
    expect(done).toMatchObject({
      status: "done",
      total: 5000,
      done: 5000,
      created: 4500,
      updated: 0,
      unchanged: 0,
      rejected: 500,
    });
    expect(
      json<{ memberCount: number }>(await callWithKey(t, "GET", `/v1/lists/${list.id}`, acc.apiKey))
        .memberCount,
    ).toBe(4500);
    const vip = json<{ data: Array<{ labels: string[] }> }>(
      await callWithKey(t, "GET", "/v1/contacts?label=vip&limit=1", acc.apiKey),
    );
    expect(vip.data[0]?.labels).toEqual(["vip", "2026"]);
    const rejected = await callWithKey(
      t,
      "GET",
      `/v1/contacts/imports/${created.importId}/rejected`,
      acc.apiKey,
    );
    expect(rejected.headers["content-type"]).toMatch(/^text\/csv/);
    const lines = rejected.body.trim().split("\n");
    expect(lines[0]).toBe("First name,Last name,Phone number,Email,Tags,row,reason");
    expect(lines).toHaveLength(501);
    expect(lines[1]).toMatch(/^Person,Number 3,4155550003,,vip;2026,4,.*country code/);

    const again = json<Imp>(await upload(csv, `&listId=${list.id}`));
    await t.parley.worker.drain();
    expect(await get(again.importId)).toMatchObject({
      status: "done",
      created: 0,
      updated: 0,
      unchanged: 4500,
      rejected: 500,
    });
  });

  it("refuses what is not a CSV with a header, with a clear message and nothing stored", async () => {
    const cases: Array<[string | Buffer, RegExp]> = [
      [Buffer.from("Name,Phone\nJos\xe9,+14155550100\n", "latin1"), /not UTF-8/],
      [Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x01]), /binary/],
      ["+14155550100,ada@example.com\n+14155550101,bob@example.com\n", /looks like data/],
      ["Name,Phone\nAda,+14155550100,extra\n", /3 values, but the header names 2/],
      ["", /empty/],
      ["First name,Last name\nAda,Lovelace\n", /no column is mapped to phone, email or externalId/],
    ];
    for (const [body, message] of cases) {
      const res = await upload(body);
      expect(res.statusCode, String(body).slice(0, 30)).toBe(400);
      expect(errorCode(res)).toBe("VALIDATION_ERROR");
      expect(json<{ error: { message: string } }>(res).error.message).toMatch(message);
    }
    const bad = await upload("Name,Phone\nAda,+14155550100\n", "&map=Nope%3Dphone");
    expect(json<{ error: { message: string } }>(bad).error.message).toMatch(/no column "Nope"/);
    const noList = await upload("Name,Phone\nAda,+14155550100\n", "&listId=ls_01aaaaaaaaaaaaaaaaaaaaaaaa");
    expect(errorCode(noList)).toBe("LIST_NOT_FOUND");
    const plain = await t.inject({
      method: "POST",
      url: `/v1/contacts/imports?apiKey=${acc.apiKey}`,
      headers: { "content-type": "text/plain" },
      payload: "Name,Phone\n",
    });
    expect(plain.statusCode).toBe(415);
    const rows = await t.parley.db.kysely
      .selectFrom("imports")
      .select("id")
      .where("account_id", "=", acc.accountId)
      .execute();
    expect(rows).toHaveLength(2); // the two imports of the first test only
  });

  it("duplicates within the file and against existing contacts update (fill empty fields) instead of creating", async () => {
    await callWithKey(t, "POST", "/v1/contacts", acc.apiKey, { phone: "+14155550301", firstName: "Old" });
    const csv = [
      "First name,Phone,Email,Channel id",
      "Ada,+14155550300,,",
      "Ada Again,+1 415 555 0300,ada@example.com,", // the same phone, written otherwise
      "New name,+14155550301,,", // a contact from the first test's file: its name is kept (mode fill)
      "Chat,,,chat-77",
      "Chat,,,chat-77", // the same custom channel id, nothing new
    ].join("\n");
    const imp = json<Imp>(await upload(csv));
    await t.parley.worker.drain();
    expect(await get(imp.importId)).toMatchObject({
      status: "done",
      total: 5,
      created: 2,
      updated: 1,
      unchanged: 2,
      rejected: 0,
    });
    const ada = json<{ contact: { firstName: string; email: string } }>(
      await callWithKey(
        t,
        "GET",
        `/v1/contacts?phoneNumber=${encodeURIComponent("+14155550300")}`,
        acc.apiKey,
      ),
    );
    expect(ada.contact).toMatchObject({ firstName: "Ada", email: "ada@example.com" });
    const old = json<{ contact: { firstName: string } }>(
      await callWithKey(
        t,
        "GET",
        `/v1/contacts?phoneNumber=${encodeURIComponent("+14155550301")}`,
        acc.apiKey,
      ),
    );
    expect(old.contact.firstName).toBe("Person");
  });

  it("rows of one slice see what the rows before them wrote: phone, then channel id, then e-mail (mode overwrite)", async () => {
    // A contact that had the e-mail before the file: e-mail-only rows match the oldest holder.
    await callWithKey(t, "POST", "/v1/contacts", acc.apiKey, { email: "shared@chain.test" });
    const csv = [
      "First name,Phone,Email,Channel id,Tags",
      "Bo,+14155558400,,,a", // created
      "Bo,+14155558400,bo@chain.test,chain-400,b", // same phone: e-mail, channel id and a label added
      "Bo Chat,,,chain-400,", // found by the channel id the row before gave it
      ",,bo@chain.test,,", // found by the e-mail given two rows before: nothing to change
      "Shared,,shared@chain.test,,", // the contact that existed before the file
      "Zed,+14155558401,shared@chain.test,,", // a phone nobody has: created, e-mail or not
      ",,shared@chain.test,,", // the oldest holder of the e-mail again: unchanged
      ",+14155558400,bo2@chain.test,,", // Bo's e-mail changes...
      ",,bo@chain.test,,", // ...so nobody has the old one any more: created
    ].join("\n");
    const imp = json<Imp>(await upload(csv, "&mode=overwrite"));
    await t.parley.worker.drain();
    expect(await get(imp.importId)).toMatchObject({
      status: "done",
      total: 9,
      created: 3,
      updated: 4,
      unchanged: 2,
      rejected: 0,
    });
    type Contact = { firstName: string | null; phone: string | null; email: string | null; labels: string[] };
    const found = json<{ data: Contact[] }>(
      await callWithKey(t, "GET", "/v1/contacts?q=chain.test&limit=10", acc.apiKey),
    ).data;
    expect(found).toHaveLength(4);
    expect(found.find((c) => c.phone === "+14155558400")).toMatchObject({
      firstName: "Bo Chat",
      email: "bo2@chain.test",
      labels: ["a", "b"],
    });
    expect(found.find((c) => c.email === "shared@chain.test" && c.phone === null)).toMatchObject({
      firstName: "Shared",
    });
    expect(found.find((c) => c.email === "bo@chain.test")).toMatchObject({ phone: null, firstName: null });
    expect(found.find((c) => c.phone === "+14155558401")).toMatchObject({
      firstName: "Zed",
      email: "shared@chain.test",
    });
    const byChannelId = json<{ data: Contact[] }>(
      await callWithKey(t, "GET", "/v1/contacts?q=chain-400", acc.apiKey),
    ).data;
    expect(byChannelId.map((c) => c.phone)).toEqual(["+14155558400"]);
  });

  it("a contact found by its phone and by its e-mail in one slice is one contact, changed once", async () => {
    const first = json<Imp>(await upload("First name,Phone,Email\nOld,+14155558500,both@dup.test\n"));
    await t.parley.worker.drain();
    expect(await get(first.importId)).toMatchObject({ created: 1 });
    const second = json<Imp>(await upload("First name,Phone,Email\nNew,+14155558500,\nNew,,both@dup.test\n"));
    await t.parley.worker.drain();
    expect(await get(second.importId)).toMatchObject({
      status: "done",
      created: 0,
      updated: 0,
      unchanged: 2,
    });
    const third = json<Imp>(
      await upload("First name,Phone,Email\nNew,+14155558500,\nNew,,both@dup.test\n", "&mode=overwrite"),
    );
    await t.parley.worker.drain();
    expect(await get(third.importId)).toMatchObject({ status: "done", created: 0, updated: 1, unchanged: 1 });
  });

  it("another account's import is 404; a mapping given by map= overrides the guess", async () => {
    const res = await upload("Mobile,Customer\n+14155559190,Grace\n", "&map=Customer%3DfirstName");
    const imp = json<Imp>(res);
    await t.parley.worker.drain();
    const contact = json<{ firstName: string }>(
      await callWithKey(
        t,
        "GET",
        `/v1/contacts?phoneNumber=${encodeURIComponent("+14155559190")}`,
        acc.apiKey,
      ),
    );
    expect(contact).toMatchObject({ contact: { firstName: "Grace" } });
    const other = await t.account();
    expect(
      (await callWithKey(t, "GET", `/v1/contacts/imports/${imp.importId}`, other.apiKey)).statusCode,
    ).toBe(404);
    expect(
      (await callWithKey(t, "GET", `/v1/contacts/imports/${imp.importId}/rejected`, other.apiKey)).statusCode,
    ).toBe(404);
  });
});

describe("parley contacts import", () => {
  it("prints progress on stderr and one JSON line with importId, total, created, updated, unchanged, rejected", async () => {
    const database = await freshDatabase();
    try {
      const env = cliEnv(database);
      oneJsonLine(
        await runCli(
          ["account", "create", "--email", "cli-import@example.com", "--password", "a long password"],
          env,
        ),
      );
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "parley-import-")), "contacts.csv");
      fs.writeFileSync(file, bigCsv(2500));
      const run = await runCli(["contacts", "import", "--email", "cli-import@example.com", file], env);
      const summary = oneJsonLine<Record<string, unknown>>(run);
      expect(Object.keys(summary)).toEqual([
        "importId",
        "total",
        "created",
        "updated",
        "unchanged",
        "rejected",
      ]);
      expect(summary).toMatchObject({ total: 2500, created: 2250, updated: 0, unchanged: 0, rejected: 250 });
      expect(run.stderr).toMatch(
        /imported 2500 of 2500 rows \(created 2250, updated 0, unchanged 0, rejected 250\)/,
      );
      const again = oneJsonLine<Record<string, unknown>>(
        await runCli(["contacts", "import", "--email", "cli-import@example.com", file], env),
      );
      expect(again).toMatchObject({ created: 0, updated: 0, unchanged: 2250, rejected: 250 });
      // Local numbers with a default country; overwrite changes nothing when the names are the same.
      const local = oneJsonLine<Record<string, unknown>>(
        await runCli(
          [
            "contacts",
            "import",
            "--email",
            "cli-import@example.com",
            "--mode",
            "overwrite",
            "--default-country",
            "US",
            file,
          ],
          env,
        ),
      );
      expect(local).toMatchObject({ created: 250, updated: 0, unchanged: 2250, rejected: 0 });
      const missing = await runCli(
        ["contacts", "import", "--email", "cli-import@example.com", "/nope.csv"],
        env,
      );
      expect(missing.code).not.toBe(0);
      expect(missing.stderr).toMatch(/cannot read \/nope.csv/);
    } finally {
      await database.drop();
    }
    // Five CLI processes, each opening the database: slow on a busy machine.
  }, 300_000);
});
