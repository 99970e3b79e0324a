import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import type { DeliveryAttempt, Message } from "../src/lib/api-types.ts";
import { MessageItem } from "../src/pages/inbox/MessageItem.tsx";
import { render } from "./render.tsx";

const attempt = (n: number, patch: Partial<DeliveryAttempt> = {}): DeliveryAttempt => ({
  id: `da_${n}`,
  url: "https://example.com/hook",
  attemptNumber: n,
  trigger: "scheduled",
  attemptedAt: "2026-01-02T10:00:00Z",
  durationMs: 120,
  statusCode: 500,
  errorClass: "http_error",
  errorMessage: null,
  responseBody: null,
  nextAttemptAt: null,
  ...patch,
});

const message = (patch: Partial<Message>): Message => ({
  id: "ms_1",
  direction: "outbound",
  type: "text",
  sender: "bot",
  senderName: null,
  botOutcome: "answer",
  body: "We open at 9.",
  status: "sent",
  error: null,
  deliveryAttempts: [],
  media: null,
  reactions: [],
  llmTokens: null,
  retry: null,
  createdAt: "2026-01-02T10:00:00Z",
  ...patch,
});

describe("a reply's delivery attempts", () => {
  it("are hidden behind a button that counts them, and listed when opened", async () => {
    render(
      <MessageItem
        message={message({
          deliveryAttempts: [
            attempt(1, { nextAttemptAt: "2026-01-02T10:01:00Z" }),
            attempt(2, {
              statusCode: null,
              errorClass: "timeout",
              errorMessage: "no answer in 10 s",
              durationMs: 10_000,
            }),
            attempt(3, { statusCode: 200, trigger: "manual" }),
          ],
        })}
        contactName="Ada"
        onResent={() => {}}
      />,
    );
    expect(screen.getByText("Sent")).toBeTruthy();
    const toggle = screen.getByRole("button", { name: "Delivery attempts (3)" });
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    fireEvent.click(toggle);
    expect(screen.getByRole("button", { name: "Hide attempts" }).getAttribute("aria-expanded")).toBe("true");
    const rows = within(await screen.findByRole("table", { name: "Delivery attempts" })).getAllByRole("row");
    expect(rows).toHaveLength(4);
    expect(rows[1]?.textContent).toContain("HTTP 500 · next try");
    expect(rows[1]?.textContent).toContain("120 ms");
    expect(rows[2]?.textContent).toContain("timeout · no answer in 10 s");
    expect(rows[3]?.textContent).toContain("HTTP 200 · resend");
  });

  it("of a failed reply come with the receiver's answer and a Resend button", async () => {
    const onResent = vi.fn();
    const view = render(
      <MessageItem
        message={message({
          status: "failed",
          error: {
            statusCode: 502,
            errorClass: "http_error",
            message: "Bad gateway",
            responseBody: "upstream down",
            at: null,
          },
          deliveryAttempts: [attempt(1, { statusCode: 502 })],
        })}
        contactName="Ada"
        onResent={onResent}
      />,
      { server: { "POST /messages/ms_1/resend": {} } },
    );
    expect(screen.getByText("Failed")).toBeTruthy();
    expect(screen.getByText("Receiver answered 502")).toBeTruthy();
    expect(screen.getByText("upstream down")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Delivery attempts (1)" })).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Resend" }));
    await waitFor(() => expect(onResent).toHaveBeenCalledOnce());
    expect(view.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /messages/ms_1/resend"]);
  });

  it("are not offered on a reply that has none", () => {
    render(<MessageItem message={message({})} contactName="Ada" onResent={() => {}} />);
    expect(screen.getByText("Sent")).toBeTruthy();
    expect(screen.queryByRole("button", { name: /Delivery attempts/ })).toBeNull();
  });

  it("nor on a customer's message, which has no delivery status", () => {
    render(
      <MessageItem
        message={message({ direction: "inbound", sender: "contact", status: "received" })}
        contactName="Ada"
        onResent={() => {}}
      />,
    );
    expect(screen.getByText("Ada")).toBeTruthy();
    expect(screen.queryByText("Sent")).toBeNull();
    expect(screen.queryByRole("button", { name: /Delivery attempts|Resend/ })).toBeNull();
  });
});
