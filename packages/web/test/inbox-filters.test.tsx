import { fireEvent, screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { Session } from "../src/lib/api-types.ts";
import { ConversationList } from "../src/pages/inbox/ConversationList.tsx";
import { emptyPage, render } from "./render.tsx";

const session = { user: { id: "us_me" } } as Session;
const server = { "GET /conversations": emptyPage, "GET /channels": emptyPage };
const listRequests = (requests: { path: string }[]) =>
  requests.filter((r) => r.path.startsWith("/conversations?")).map((r) => r.path);

describe("the inbox filters", () => {
  it("ask for the open conversations when nothing is chosen", async () => {
    const view = render(<ConversationList session={session} selectedId={null} />, {
      route: "/inbox",
      server,
    });
    expect(await screen.findByText("No conversations yet")).toBeTruthy();
    expect(listRequests(view.requests)).toEqual(["/conversations?status=open&limit=50"]);
  });

  it("read the filters from the address and send them with the request", async () => {
    const view = render(<ConversationList session={session} selectedId={null} />, {
      route: "/inbox?status=all&humanAlert=true&label=vip&assignee=me",
      server,
    });
    expect(await screen.findByText("No conversation matches")).toBeTruthy();
    expect(listRequests(view.requests)).toEqual([
      "/conversations?assignee=me&humanAlert=true&label=vip&limit=50",
    ]);
    expect((screen.getByLabelText("Needs a human") as HTMLInputElement).checked).toBe(true);
    expect((screen.getByLabelText("Contact label") as HTMLInputElement).value).toBe("vip");
  });

  it("put a changed filter in the address and ask again", async () => {
    const view = render(<ConversationList session={session} selectedId={null} />, {
      route: "/inbox?humanAlert=true",
      server,
    });
    await screen.findByText("No conversation matches");
    fireEvent.click(screen.getByLabelText("Needs a human"));
    await waitFor(() => expect(view.location()).toBe("/inbox"));
    await screen.findByText("No conversations yet");
    fireEvent.change(screen.getByLabelText("Contact label"), { target: { value: "vip" } });
    await waitFor(() => expect(view.location()).toBe("/inbox?label=vip"));
    await waitFor(() =>
      expect(listRequests(view.requests)).toEqual([
        "/conversations?status=open&humanAlert=true&limit=50",
        "/conversations?status=open&limit=50",
        "/conversations?status=open&label=vip&limit=50",
      ]),
    );
  });
});
