// CSV import hardening: every CSV Parley writes neutralises spreadsheet formulas; a very wide file is
// refused from its first bytes (before the body is read to its end, and before the CSV parser sees it);
// the counts add up (unchanged); an import fills empty fields unless told to overwrite; a quoted
// "vip,wedding" labels cell is two labels; local numbers take a default country.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedAccount } from "../src/modules/accounts/service.ts";
import { MAX_CSV_COLUMNS, MAX_CSV_HEADER_BYTES } from "../src/modules/imports/csv.ts";
import { csvText } from "../src/platform/csv-out.ts";
import { type Browser, ownerBrowser } from "./app-helpers.ts";
import { callWithKey, errorCode, json, startTestApp, type TestApp } from "./helpers.ts";

interface Imp {
  importId: string;
  status: string;
  total: number;
  done: number;
  created: number;
  updated: number;
  unchanged: number;
  rejected: number;
  error: string | null;
}

type Contact = {
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  phone: string | null;
  labels: string[];
};

describe("csvText, the writer of every CSV Parley answers", () => {
  it("prefixes an apostrophe to cells starting with = + - @ tab or CR, and quotes as RFC 4180 says", () => {
    const out = csvText([
      ["=1+2", "+1", "-2+3", "@SUM(A1)", "\tx", "\rx", "plain", 'say "hi", ok', "a\nb", "", "1-2"],
    ]);
    const [row] = parse(out) as string[][];
    expect(row).toEqual([
      "'=1+2",
      "'+1",
      "'-2+3",
      "'@SUM(A1)",
      "'\tx",
      "'\rx",
      "plain",
      'say "hi", ok',
      "a\nb",
      "",
      "1-2",
    ]);
    expect(out.endsWith("\n")).toBe(true);
  });
});

describe("contact import hardening", () => {
  let t: TestApp;
  let acc: CreatedAccount;
  let browser: Browser;
  const upload = (csv: string | Buffer, query = "") =>
    t.inject({
      method: "POST",
      url: `/v1/contacts/imports?apiKey=${acc.apiKey}${query}`,
      headers: { "content-type": "text/csv" },
      payload: csv,
    });
  const get = async (id: string) =>
    json<Imp>(await callWithKey(t, "GET", `/v1/contacts/imports/${id}`, acc.apiKey));
  const run = async (csv: string, query = "") => {
    const res = await upload(csv, query);
    expect(res.statusCode, res.body).toBe(202);
    await t.parley.worker.drain();
    return get(json<Imp>(res).importId);
  };
  const contactByPhone = async (phone: string) =>
    json<{ contact: Contact }>(
      await callWithKey(t, "GET", `/v1/contacts?phoneNumber=${encodeURIComponent(phone)}`, acc.apiKey),
    ).contact;

  beforeAll(async () => {
    t = await startTestApp();
    // One account for both doors: its API key and its owner's browser.
    const owner = await ownerBrowser(t);
    acc = owner.acc;
    browser = owner.browser;
  });
  afterAll(async () => t?.close());

  it("the rejected rows neutralise cells that a spreadsheet would run as formulas, reason included", async () => {
    const dangerous = [
      '=HYPERLINK("http://evil.test","click")',
      "+cmd|' /C calc'!A0",
      "@SUM(1+1)",
      "-2+3",
      "\tstarts with a tab",
      "\rstarts with a carriage return",
    ];
    const lines = ["Name,Phone,Tags"];
    // Each dangerous value as a name (the row rejected by its phone) and as the bad phone itself, which
    // the reason repeats.
    for (const d of dangerous) lines.push(`"${d.replace(/"/g, '""')}",4155550100,`);
    for (const d of dangerous) lines.push(`Ada,"${d.replace(/"/g, '""')}",`);
    // A label cell whose reason starts with the value.
    lines.push('Ada,+14155550111,"=1+2\\x"');
    const imp = await run(`${lines.join("\n")}\n`);
    expect(imp).toMatchObject({ status: "done", rejected: dangerous.length * 2 + 1 });

    for (const res of [
      await callWithKey(t, "GET", `/v1/contacts/imports/${imp.importId}/rejected`, acc.apiKey),
      await browser.req({ method: "GET", url: `/app/api/imports/${imp.importId}/rejected` }),
    ]) {
      expect(res.statusCode, res.body).toBe(200);
      const rows = parse(res.body, { relax_column_count: false }) as string[][];
      expect(rows[0]).toEqual(["Name", "Phone", "Tags", "row", "reason"]);
      const cells = rows.flat();
      const active = cells.filter((c) => /^[=+\-@\t\r]/.test(c));
      expect(active, "cells a spreadsheet would run").toEqual([]);
      // The value is kept, after the apostrophe spreadsheets hide (tab and CR: see the helper's test,
      // the parser trims them from the upload).
      for (const d of dangerous.slice(0, 4)) expect(cells).toContain(`'${d}`);
      const reasons = rows.slice(1).map((r) => r[4] ?? "");
      expect(reasons.some((r) => r.includes("=HYPERLINK"))).toBe(true);
      expect(reasons.every((r) => !/^[=+\-@\t\r]/.test(r))).toBe(true);
    }
  });

  it("counts rows that change nothing as unchanged: created + updated + unchanged + rejected = total", async () => {
    const csv = "First name,Phone\nUna,+14155557001\nUlf,+14155557002\nBad,4155557003\n";
    const first = await run(csv);
    expect(first).toMatchObject({ total: 3, created: 2, updated: 0, unchanged: 0, rejected: 1 });
    const again = await run(csv);
    expect(again).toMatchObject({ total: 3, created: 0, updated: 0, unchanged: 2, rejected: 1 });
    expect(again.created + again.updated + again.unchanged + again.rejected).toBe(again.total);
  });

  it("fills empty fields by default and overwrites only with mode=overwrite", async () => {
    await callWithKey(t, "POST", "/v1/contacts", acc.apiKey, {
      phone: "+14155557101",
      firstName: "Chloe",
      email: "chloe@fill.test",
    });
    const csv = "First name,Last name,Phone,Email\nFarid,Haddad,+14155557101,farid@fill.test\n";
    const fill = await run(csv);
    expect(fill).toMatchObject({ created: 0, updated: 1, unchanged: 0 });
    expect(await contactByPhone("+14155557101")).toMatchObject({
      firstName: "Chloe",
      lastName: "Haddad", // empty before: filled
      email: "chloe@fill.test",
    });
    expect(await run(csv, "&mode=fill")).toMatchObject({ updated: 0, unchanged: 1 });
    const over = await run(csv, "&mode=overwrite");
    expect(over).toMatchObject({ updated: 1, unchanged: 0 });
    expect(await contactByPhone("+14155557101")).toMatchObject({
      firstName: "Farid",
      lastName: "Haddad",
      email: "farid@fill.test",
    });
    const bad = await upload(csv, "&mode=replace");
    expect(bad.statusCode).toBe(400);
    expect(errorCode(bad)).toBe("VALIDATION_ERROR");
  });

  it("a quoted labels cell with commas is several labels; local numbers take defaultCountry", async () => {
    const labelled = await run(
      'Name,Phone,Labels\nLea,+14155557201,"vip,wedding"\nLuc,+14155557202,"a, b;c"\n',
    );
    expect(labelled).toMatchObject({ created: 2, rejected: 0 });
    expect((await contactByPhone("+14155557201")).labels).toEqual(["vip", "wedding"]);
    expect((await contactByPhone("+14155557202")).labels).toEqual(["a", "b", "c"]);

    const local = "Name,Phone\nCam,(416) 555-0123\nIntl,+442071838750\n";
    expect(await run(local)).toMatchObject({ created: 1, rejected: 1 });
    expect(await run(local, "&defaultCountry=CA")).toMatchObject({ created: 1, unchanged: 1, rejected: 0 });
    expect((await contactByPhone("+14165550123")).firstName).toBe("Cam");
    const bad = await upload(local, "&defaultCountry=XX");
    expect(bad.statusCode).toBe(400);
    expect(json<{ error: { message: string } }>(bad).error.message).toMatch(/defaultCountry/);
  });

  it("the web app's import takes mode and defaultCountry too", async () => {
    const post = (csv: string, query: string) =>
      browser.req({
        method: "POST",
        url: `/app/api/imports?${query}`,
        headers: { "content-type": "text/csv" },
        payload: csv,
      });
    const first = await post("Name,Phone\nMia,416 555 0144\n", "defaultCountry=CA");
    expect(first.statusCode, first.body).toBe(202);
    await t.parley.worker.drain();
    const second = await post("Name,Phone\nMaya,416 555 0144\n", "defaultCountry=CA&mode=overwrite");
    expect(second.statusCode, second.body).toBe(202);
    await t.parley.worker.drain();
    const done = json<Imp>(
      await browser.req({ method: "GET", url: `/app/api/imports/${json<Imp>(second).importId}` }),
    );
    expect(done).toMatchObject({ status: "done", updated: 1, unchanged: 0, created: 0 });
  });

  it("refuses a file wider than the column cap or with an over-long header line, on every door, storing nothing", async () => {
    const wide = (n: number) => Array.from({ length: n }, (_, i) => (i === 0 ? "Phone" : `c${i}`)).join(",");
    const before = await t.parley.db.kysely.selectFrom("imports").select("id").execute();
    const cases: Array<[string, string]> = [
      [`${wide(400_000)}\n+14155550100\n`, "400,000 columns"],
      [`${wide(MAX_CSV_COLUMNS + 1)}\n+14155550100\n`, "one column too many"],
      [`Phone,"${"x".repeat(MAX_CSV_HEADER_BYTES)}"\n+14155550100,a\n`, "a header line too long"],
      [`Phone,Name\n+14155550100,a\n${wide(5_000)}\n`, "a data row with 5,000 values"],
    ];
    for (const [body, what] of cases) {
      for (const url of ["/v1/contacts/imports", "/app/api/imports/preview", "/app/api/imports"]) {
        const res = url.startsWith("/v1")
          ? await upload(body)
          : await browser.req({
              method: "POST",
              url,
              headers: { "content-type": "text/csv" },
              payload: body,
            });
        expect(res.statusCode, `${what} on ${url}: ${res.body.slice(0, 200)}`).toBe(400);
        expect(errorCode(res), what).toBe("CSV_TOO_WIDE");
        expect(json<{ error: { message: string } }>(res).error.message).toMatch(/columns|header/);
      }
    }
    expect(await t.parley.db.kysely.selectFrom("imports").select("id").execute()).toHaveLength(before.length);
    // The cap itself is accepted.
    const atCap = await browser.req({
      method: "POST",
      url: "/app/api/imports/preview",
      headers: { "content-type": "text/csv" },
      payload: `${wide(MAX_CSV_COLUMNS)}\n+14155550100\n`,
    });
    expect(atCap.statusCode, atCap.body.slice(0, 200)).toBe(200);
    expect(json<{ header: string[] }>(atCap).header).toHaveLength(MAX_CSV_COLUMNS);
  });

  it("answers a too-wide upload while its body is still arriving (the file is not buffered first)", async () => {
    await t.parley.app.listen({ host: "127.0.0.1", port: 0 });
    const { port } = t.parley.app.server.address() as AddressInfo;
    const answer = await new Promise<{ status: number; body: string; endedByClient: boolean }>(
      (resolve, reject) => {
        let finished = false;
        let endedByClient = false;
        const startedAt = Date.now();
        const req = http.request(
          {
            host: "127.0.0.1",
            port,
            method: "POST",
            path: `/v1/contacts/imports?apiKey=${acc.apiKey}`,
            headers: { "content-type": "text/csv", "transfer-encoding": "chunked" },
          },
          (res) => {
            let body = "";
            res.on("data", (c) => (body += c));
            res.on("end", () => {
              finished = true;
              req.destroy();
              resolve({ status: res.statusCode ?? 0, body, endedByClient });
            });
          },
        );
        req.on("error", (err) => {
          if (!finished) reject(err);
        });
        // 2,000 header columns in the first chunk, then more data; the body does not end unless the
        // server answers first (a server that buffered the file would never see the header in time and
        // would answer 413 at the size limit instead). The 20 s end is only a guard against a hang.
        const first = `${Array.from({ length: 2000 }, (_, i) => `c${i}`).join(",")},`;
        req.write(first);
        const more = setInterval(() => {
          if (finished || Date.now() - startedAt > 20_000) {
            clearInterval(more);
            if (!finished) {
              endedByClient = true;
              req.end();
            }
            return;
          }
          const chunk = "x,".repeat(50_000);
          req.write(chunk);
        }, 20);
      },
    );
    expect(answer.status, answer.body).toBe(400);
    expect(JSON.parse(answer.body).error.code).toBe("CSV_TOO_WIDE");
    expect(answer.endedByClient).toBe(false);
  });
});
