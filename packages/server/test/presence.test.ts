// Presence in a conversation (/app/api/conversations/:id/presence and the event stream's `presence`
// events): two teammates of one account see each other viewing and typing, never themselves; a
// heartbeat runs out (short times here: viewing 2 s, typing 1 s); another account's conversation is
// 404 and its people never hear of it. On PostgreSQL, a heartbeat taken by one API node reaches the
// stream held by another.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { type Browser, ownerBrowser, teammate } from "./app-helpers.ts";
import { customData, postIncoming } from "./fixtures/incoming.ts";
import { DIALECT, errorCode, json, startTestApp, type TestApp } from "./helpers.ts";

let t: TestApp;
let port = 0;

beforeAll(async () => {
  t = await startTestApp({ PRESENCE_VIEWING_SECONDS: "2", PRESENCE_TYPING_SECONDS: "1" });
  await t.parley.app.listen({ port: 0, host: "127.0.0.1" });
  port = (t.parley.app.server.address() as AddressInfo).port;
});
afterAll(() => t.close());

interface Person {
  userId: string;
  name: string;
  state: "viewing" | "typing";
}

/** An owner, a teammate and one conversation of their account. */
async function team() {
  const { acc, browser: owner } = await ownerBrowser(t);
  const mate = await teammate(t, owner, "agent", "Sam Agent");
  const res = await postIncoming(t, acc.apiKey, { customData: customData({ body: "anyone there?" }) });
  expect(res.statusCode, res.body).toBe(200);
  const list = await owner.req({ method: "GET", url: "/app/api/conversations" });
  const conversationId = json<{ data: { id: string }[] }>(list).data[0]?.id as string;
  return { owner, mate, conversationId };
}

const beat = (b: Browser, conversationId: string, state: "viewing" | "typing") =>
  b.req({ method: "POST", url: `/app/api/conversations/${conversationId}/presence`, payload: { state } });

async function others(b: Browser, conversationId: string): Promise<Person[]> {
  const res = await b.req({ method: "GET", url: `/app/api/conversations/${conversationId}/presence` });
  expect(res.statusCode, res.body).toBe(200);
  return json<{ people: Person[] }>(res).people;
}

/** Polls until `check` holds (a short deadline: the times here are a second or two). */
async function until(check: () => Promise<boolean> | boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("not reached in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The event stream of one browser, on a node's port: collects its `presence` events. */
async function presenceStream(b: Browser, onPort = port) {
  let text = "";
  const req = http.get(
    { host: "127.0.0.1", port: onPort, path: "/app/api/events", headers: { cookie: b.cookie } },
    (res) => {
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
    },
  );
  req.on("error", () => {});
  await until(() => text.includes(": connected"));
  return {
    events: () =>
      [...text.matchAll(/event: presence\ndata: (.*)\n\n/g)].map(
        (m) => JSON.parse(m[1] as string) as { conversationId: string; people: Person[] },
      ),
    close: () => req.destroy(),
  };
}

describe("presence", () => {
  it("shows teammates viewing and typing to each other, never to themselves, and lets it run out", async () => {
    const { owner, mate, conversationId } = await team();
    const stream = await presenceStream(owner);
    try {
      expect((await beat(mate, conversationId, "viewing")).statusCode).toBe(204);
      expect((await beat(owner, conversationId, "viewing")).statusCode).toBe(204);
      const mateId = mate.session.user.id;
      expect(await others(owner, conversationId)).toEqual([
        { userId: mateId, name: "Sam Agent", state: "viewing" },
      ]);
      expect((await others(mate, conversationId)).map((p) => p.userId)).toEqual([owner.session.user.id]);
      await until(() =>
        stream
          .events()
          .some((e) => e.conversationId === conversationId && e.people.some((p) => p.userId === mateId)),
      );

      // Typing: pushed on the stream, then back to viewing after a second without a heartbeat.
      expect((await beat(mate, conversationId, "typing")).statusCode).toBe(204);
      expect((await others(owner, conversationId))[0]?.state).toBe("typing");
      await until(() =>
        stream.events().some((e) => e.people.some((p) => p.userId === mateId && p.state === "typing")),
      );
      const pushes = stream.events().length;
      await until(async () => (await others(owner, conversationId))[0]?.state === "viewing");
      await until(() => stream.events().length > pushes);
      expect(
        stream
          .events()
          .at(-1)
          ?.people.find((p) => p.userId === mateId)?.state,
      ).toBe("viewing");

      // Viewing runs out too (2 s after the last heartbeat), and the stream says so.
      await until(async () => (await others(owner, conversationId)).length === 0);
      await until(
        () =>
          stream
            .events()
            .at(-1)
            ?.people.every((p) => p.userId !== mateId) === true,
      );

      // Leaving takes effect at once.
      await beat(mate, conversationId, "viewing");
      expect(await others(owner, conversationId)).toHaveLength(1);
      const left = await mate.req({
        method: "DELETE",
        url: `/app/api/conversations/${conversationId}/presence`,
      });
      expect(left.statusCode).toBe(204);
      expect(await others(owner, conversationId)).toEqual([]);
    } finally {
      stream.close();
    }
  });

  it("answers 404 for another account's conversation, whose people never hear of it", async () => {
    const ours = await team();
    const { browser: stranger } = await ownerBrowser(t);
    const stream = await presenceStream(stranger);
    try {
      expect(errorCode(await beat(stranger, ours.conversationId, "typing"))).toBe("CONVERSATION_NOT_FOUND");
      expect((await beat(stranger, ours.conversationId, "viewing")).statusCode).toBe(404);
      const read = await stranger.req({
        method: "GET",
        url: `/app/api/conversations/${ours.conversationId}/presence`,
      });
      expect(read.statusCode).toBe(404);
      const leave = await stranger.req({
        method: "DELETE",
        url: `/app/api/conversations/${ours.conversationId}/presence`,
      });
      expect(leave.statusCode).toBe(404);
      // The teammate's heartbeat reaches the owner, never the other account's stream.
      await beat(ours.mate, ours.conversationId, "typing");
      expect(await others(ours.owner, ours.conversationId)).toHaveLength(1);
      await new Promise((r) => setTimeout(r, 200));
      expect(stream.events()).toEqual([]);
      // Bad input: a clear 400.
      const bad = await ours.mate.req({
        method: "POST",
        url: `/app/api/conversations/${ours.conversationId}/presence`,
        payload: { state: "dancing" },
      });
      expect(bad.statusCode).toBe(400);
    } finally {
      stream.close();
    }
  });

  it.runIf(DIALECT === "postgres")("reaches a stream held by another API node (PostgreSQL)", async () => {
    const second = await buildApp(t.config, { worker: { pollIntervalMs: 20, leaseMs: 5_000 } });
    try {
      await second.app.listen({ port: 0, host: "127.0.0.1" });
      const secondPort = (second.app.server.address() as AddressInfo).port;
      const { owner, mate, conversationId } = await team();
      // Give the second node's LISTEN connection time to come up.
      await new Promise((r) => setTimeout(r, 300));
      const stream = await presenceStream(owner, secondPort);
      try {
        await beat(mate, conversationId, "typing");
        await until(() =>
          stream
            .events()
            .some((e) => e.people.some((p) => p.userId === mate.session.user.id && p.state === "typing")),
        );
        const onSecond = await second.app.inject({
          method: "GET",
          url: `/app/api/conversations/${conversationId}/presence`,
          headers: { cookie: owner.cookie },
        });
        expect(json<{ people: Person[] }>(onSecond).people.map((p) => p.state)).toEqual(["typing"]);
      } finally {
        stream.close();
      }
    } finally {
      await second.close();
    }
  });
});
