import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { Source } from "../src/lib/api-types.ts";
import { SourcesSection, sourceFileCheck } from "../src/pages/campaigns/SourcesSection.tsx";
import { render } from "./render.tsx";

const source = (patch: Partial<Source>): Source => ({
  id: "ks_1",
  campaignId: "cmp_1",
  type: "file",
  name: "handbook.md",
  url: null,
  contentType: "text/markdown",
  status: "ready",
  error: null,
  passages: 12,
  bytes: 4096,
  dailyResync: false,
  lastSyncedAt: "2026-01-02T10:00:00Z",
  createdAt: "2026-01-02T09:59:00Z",
  updatedAt: "2026-01-02T10:00:00Z",
  ...patch,
});

const file = (name: string, type = "", size = 10) => {
  const f = new File(["x".repeat(Math.min(size, 10))], name, { type });
  Object.defineProperty(f, "size", { value: size });
  return f;
};

describe("a knowledge source file", () => {
  it("is sent with the type its extension names, or the browser's when that is one the server reads", () => {
    expect(sourceFileCheck(file("Handbook.MD"))).toEqual({ contentType: "text/markdown" });
    expect(sourceFileCheck(file("prices.docx"))).toEqual({
      contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    });
    expect(sourceFileCheck(file("faq.htm"))).toEqual({ contentType: "text/html" });
    expect(sourceFileCheck(file("notes", "text/plain"))).toEqual({ contentType: "text/plain" });
  });

  it("is refused before sending when the server could not read it, it is too large or empty", () => {
    expect(sourceFileCheck(file("photo.png", "image/png"))).toEqual({
      problem: "photo.png cannot be read: upload a PDF, DOCX, Markdown, HTML or plain text file.",
    });
    expect(sourceFileCheck(file("manual.pdf", "application/pdf", 21 * 1024 * 1024))).toEqual({
      problem: "manual.pdf is 21 MB; files can be at most 20 MB.",
    });
    expect(sourceFileCheck(file("empty.txt", "text/plain", 0))).toEqual({ problem: "empty.txt is empty." });
  });
});

describe("the campaign's knowledge sources", () => {
  it("say so when there are none", async () => {
    render(<SourcesSection campaignId="cmp_1" editable />, {
      server: { "GET /campaigns/cmp_1/sources": { data: [] } },
    });
    await screen.findByText("No sources yet: upload a handbook or add a web page.");
    expect(screen.getByRole("button", { name: "Upload a file" })).toBeTruthy();
    expect(screen.getByRole("textbox", { name: "Page or sitemap URL" })).toBeTruthy();
  });

  it("list each source with its status, passages and, for web pages, the daily re-sync", async () => {
    render(<SourcesSection campaignId="cmp_1" editable />, {
      server: {
        "GET /campaigns/cmp_1/sources": {
          data: [
            source({}),
            source({
              id: "ks_2",
              type: "url",
              name: "Opening hours",
              url: "https://shop.example/hours",
              contentType: null,
              status: "error",
              error: "The page answered 404",
              passages: 1,
              dailyResync: true,
            }),
            source({ id: "ks_3", name: "prices.pdf", status: "processing", passages: 0, lastSyncedAt: null }),
          ],
        },
      },
    });
    const table = await screen.findByRole("table", { name: "Knowledge sources" });
    const rows = within(table).getAllByRole("row").slice(1);
    expect(rows.map((r) => within(r).getAllByRole("cell")[2]?.textContent)).toEqual([
      "Ready",
      "ErrorThe page answered 404",
      "Processing",
    ]);
    within(rows[0]!).getByText("12 passages");
    within(rows[1]!).getByText("1 passage");
    within(rows[2]!).getByText("Not yet");
    expect(within(rows[0]!).queryByRole("switch")).toBeNull();
    expect(
      (within(rows[1]!).getByRole("switch", { name: "Daily re-sync Opening hours" }) as HTMLInputElement)
        .checked,
    ).toBe(true);
    within(rows[1]!).getByRole("button", { name: "Re-sync Opening hours" });
    within(rows[1]!).getByRole("button", { name: "Delete Opening hours" });
  });

  it("refuse a file over 20 MB without sending it", async () => {
    const { container, requests } = render(<SourcesSection campaignId="cmp_1" editable />, {
      server: { "GET /campaigns/cmp_1/sources": { data: [] } },
    });
    await screen.findByText("No sources yet: upload a handbook or add a web page.");
    const input = container.querySelector('input[type="file"]') as HTMLInputElement;
    fireEvent.change(input, { target: { files: [file("big.pdf", "application/pdf", 25 * 1024 * 1024)] } });
    await screen.findByText("big.pdf is 25 MB; files can be at most 20 MB.");
    expect(requests.filter((r) => r.method === "POST")).toEqual([]);
  });

  it("add a sitemap by its address", async () => {
    const { requests } = render(<SourcesSection campaignId="cmp_1" editable />, {
      server: {
        "GET /campaigns/cmp_1/sources": { data: [] },
        "POST /campaigns/cmp_1/sources": source({ type: "sitemap", status: "processing" }),
      },
    });
    const field = await screen.findByRole("textbox", { name: "Page or sitemap URL" });
    fireEvent.change(field, { target: { value: "ftp://shop.example" } });
    fireEvent.click(screen.getByRole("button", { name: "Add URL" }));
    await screen.findByText("Give a web address starting with https://, like https://example.com/faq");
    fireEvent.change(field, { target: { value: " https://shop.example/sitemap.xml " } });
    fireEvent.click(screen.getByRole("radio", { name: "Sitemap" }));
    fireEvent.click(screen.getByRole("button", { name: "Add URL" }));
    await waitFor(() =>
      expect(requests.find((r) => r.method === "POST")?.body).toEqual({
        type: "sitemap",
        url: "https://shop.example/sitemap.xml",
      }),
    );
    await waitFor(() => expect((field as HTMLInputElement).value).toBe(""));
  });

  it("show agents the list without the controls", async () => {
    render(<SourcesSection campaignId="cmp_1" editable={false} />, {
      server: { "GET /campaigns/cmp_1/sources": { data: [source({})] } },
    });
    await screen.findByText("12 passages");
    expect(screen.queryByRole("button", { name: "Upload a file" })).toBeNull();
    expect(screen.queryByRole("button", { name: /Delete/ })).toBeNull();
  });
});
