// Live updates for the web app, per account: "this conversation changed", and "sessions of this
// account ended" (sign-out, a removed teammate, a password change), on which each open stream checks
// its own session and ends at once if it is gone. In-process on SQLite (one API process owns the
// file); on PostgreSQL through LISTEN/NOTIFY on one channel, so a message taken by another API
// process (or a worker), or a sign-out on another node, reaches the browsers connected to this one.
import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import pg from "pg";
import { Batcher } from "./db/batcher.ts";
import { signalAfterCommit } from "./db/commit-signals.ts";

export interface LiveEvent {
  conversationId: string;
}

export type LiveListener = (event: LiveEvent) => void;

/**
 * The chat widget's visitor streams: events of one conversation only, on their own NOTIFY channel
 * (never the inbox's per-account one): a person typing in the inbox, a new message to re-read.
 */
export type VisitorEvent = { type: "typing" } | { type: "message" };
export type VisitorListener = (event: VisitorEvent) => void;
export const VISITOR_CHANNEL = "parley_visitor";

/**
 * A teammate's presence heartbeat in a conversation (viewing, typing, or left): nothing is stored;
 * every API node keeps its own short-lived board of them (modules/app-api/presence.ts).
 */
export interface PresenceBeat {
  accountId: string;
  conversationId: string;
  userId: string;
  name: string;
  state: "viewing" | "typing" | "left";
}
export type PresenceListener = (beat: PresenceBeat) => void;
export const PRESENCE_CHANNEL = "parley_presence";

export interface Live {
  /** Call after the change is committed; never throws, never waits for the listeners. */
  publish(accountId: string, event: LiveEvent): void;
  /** Returns the unsubscribe. */
  subscribe(accountId: string, listener: LiveListener): () => void;
  /** To the widget streams of one conversation (any API node); never throws. */
  publishVisitor(conversationId: string, event: VisitorEvent): void;
  /** Returns the unsubscribe. */
  subscribeVisitor(conversationId: string, listener: VisitorListener): () => void;
  /** Sessions of the account ended (call after the commit): its streams on every node re-check theirs. */
  publishSessionsEnded(accountId: string): void;
  /** Returns the unsubscribe. */
  subscribeSessionsEnded(accountId: string, listener: () => void): () => void;
  /** A presence heartbeat to every node's presence board (this one included); never throws. */
  publishPresence(beat: PresenceBeat): void;
  /** Every account's heartbeats (one board per node listens). Returns the unsubscribe. */
  subscribePresence(listener: PresenceListener): () => void;
  close(): Promise<void>;
}

export const LIVE_CHANNEL = "parley_live";

/** Commit-signal topic: a conversation (or one of its messages) changed; payload ConversationChange. */
export const CONVERSATION_CHANGED = "conversation.changed";

export interface ConversationChange {
  accountId: string;
  conversationId: string;
}

/** Commit-signal topic: sessions of an account were deleted; payload SessionsEnded. */
export const SESSIONS_ENDED = "sessions.ended";

export interface SessionsEnded {
  accountId: string;
}

/** Inside a db.write() that deletes sessions: the account's open streams re-check theirs after the commit. */
export function sessionsEnded(trx: object, accountId: string): void {
  signalAfterCommit(trx, SESSIONS_ENDED, { accountId } satisfies SessionsEnded);
}

/**
 * Inside a db.write(): tell the browsers about this conversation once the transaction commits (the
 * composition root forwards the signal to `live.publish`). Nothing is sent for a rollback.
 */
export function conversationChanged(trx: object, accountId: string, conversationId: string): void {
  signalAfterCommit(trx, CONVERSATION_CHANGED, { accountId, conversationId } satisfies ConversationChange);
}

class LocalHub<E = LiveEvent> {
  private readonly emitter = new EventEmitter();
  constructor() {
    // One listener per open browser tab: no leak warning at 11.
    this.emitter.setMaxListeners(0);
  }
  emit(accountId: string, event: E): void {
    this.emitter.emit(accountId, event);
  }
  on(accountId: string, listener: (event: E) => void): () => void {
    // Each subscriber is isolated: a throwing listener must not stop the others.
    const safe = (e: E) => {
      try {
        listener(e);
      } catch {}
    };
    this.emitter.on(accountId, safe);
    return () => this.emitter.off(accountId, safe);
  }
  clear(): void {
    this.emitter.removeAllListeners();
  }
}

/** SQLite (or no shared database): subscribers in this process only. */
export function inProcessLive(): Live {
  const hub = new LocalHub();
  const visitors = new LocalHub<VisitorEvent>();
  const sessions = new LocalHub<SessionsEnded>();
  const presence = new LocalHub<PresenceBeat>();
  return {
    publish: (accountId, event) => queueMicrotask(() => hub.emit(accountId, event)),
    subscribe: (accountId, listener) => hub.on(accountId, listener),
    publishVisitor: (conversationId, event) => queueMicrotask(() => visitors.emit(conversationId, event)),
    subscribeVisitor: (conversationId, listener) => visitors.on(conversationId, listener),
    publishSessionsEnded: (accountId) => queueMicrotask(() => sessions.emit(accountId, { accountId })),
    subscribeSessionsEnded: (accountId, listener) => sessions.on(accountId, listener),
    publishPresence: (beat) => queueMicrotask(() => presence.emit(PRESENCE_CHANNEL, beat)),
    subscribePresence: (listener) => presence.on(PRESENCE_CHANNEL, listener),
    close: async () => {
      hub.clear();
      visitors.clear();
      sessions.clear();
      presence.clear();
    },
  };
}

/**
 * PostgreSQL: publish is a NOTIFY (through the pool), and one LISTEN client per process, reconnected
 * after an error, hands notifications to the local subscribers. While it is reconnecting, events
 * published on this node still reach this node's subscribers directly. The events published while a
 * NOTIFY is in flight share the next one (`notify` sends each payload, all in one statement): a
 * worker delivering hundreds of replies a second must not spend a round trip on each.
 */
export function postgresLive(
  databaseUrl: string,
  notify: (channel: string, payloads: string[]) => Promise<void>,
  onError: (err: unknown) => void,
): Live {
  const hub = new LocalHub();
  const notifier = new Batcher<string, undefined>(async (payloads) => {
    try {
      await notify(LIVE_CHANNEL, payloads);
    } catch (err) {
      // Reported once per batch; live updates are best effort (the inbox also refreshes on focus).
      onError(err);
    }
    return payloads.map(() => undefined);
  });
  const visitors = new LocalHub<VisitorEvent>();
  const sessions = new LocalHub<SessionsEnded>();
  const visitorNotifier = new Batcher<string, undefined>(async (payloads) => {
    try {
      await notify(VISITOR_CHANNEL, payloads);
    } catch (err) {
      onError(err);
    }
    return payloads.map(() => undefined);
  });
  const presence = new LocalHub<PresenceBeat>();
  const presenceNotifier = new Batcher<string, undefined>(async (payloads) => {
    try {
      await notify(PRESENCE_CHANNEL, payloads);
    } catch (err) {
      onError(err);
    }
    return payloads.map(() => undefined);
  });
  let closed = false;
  let listening = false;
  let client: pg.Client | null = null;
  // Events this process delivered itself while its LISTEN was down: when their NOTIFY comes back
  // (the connection came up in between), they are not delivered a second time.
  const origin = randomUUID();
  let sequence = 0;
  const deliveredHere = new Set<number>();
  const connect = async () => {
    if (closed) return;
    const c = new pg.Client({ connectionString: databaseUrl });
    c.on("notification", (msg) => {
      if (msg.channel === PRESENCE_CHANNEL && msg.payload) {
        try {
          const { o, ...beat } = JSON.parse(msg.payload) as PresenceBeat & { o?: string };
          // This node's own heartbeats reached its board when published.
          if (o !== origin && typeof beat.accountId === "string") presence.emit(PRESENCE_CHANNEL, beat);
        } catch {}
        return;
      }
      if (msg.channel === VISITOR_CHANNEL && msg.payload) {
        try {
          const { v, t, o } = JSON.parse(msg.payload) as { v: string; t: string; o?: string };
          // This node's own events were handed to its subscribers when published.
          if (o === origin || typeof v !== "string") return;
          if (t === "typing" || t === "message") visitors.emit(v, { type: t });
        } catch {}
        return;
      }
      if (msg.channel !== LIVE_CHANNEL || !msg.payload) return;
      try {
        const {
          a,
          c: conversationId,
          s,
          o,
          k,
        } = JSON.parse(msg.payload) as { a: string; c?: string; s?: number; o?: string; k?: number };
        // Sessions ended: this node's own were handed to its subscribers when published.
        if (s === 1) {
          if (o !== origin && typeof a === "string") sessions.emit(a, { accountId: a });
          return;
        }
        if (o === origin && typeof k === "number" && deliveredHere.delete(k)) return;
        if (typeof a === "string" && typeof conversationId === "string") hub.emit(a, { conversationId });
      } catch {}
    });
    c.on("error", (err) => {
      listening = false;
      onError(err);
      void c.end().catch(() => {});
      if (!closed) setTimeout(() => void connect(), 1000).unref();
    });
    try {
      await c.connect();
      await c.query(`listen ${LIVE_CHANNEL}`);
      await c.query(`listen ${VISITOR_CHANNEL}`);
      await c.query(`listen ${PRESENCE_CHANNEL}`);
      if (closed) {
        await c.end().catch(() => {});
        return;
      }
      client = c;
      listening = true;
    } catch (err) {
      onError(err);
      void c.end().catch(() => {});
      if (!closed) setTimeout(() => void connect(), 1000).unref();
    }
  };
  void connect();
  return {
    publish(accountId, event) {
      if (closed) return;
      const k = ++sequence;
      if (!listening) {
        if (deliveredHere.size > 10_000) deliveredHere.clear();
        deliveredHere.add(k);
        queueMicrotask(() => hub.emit(accountId, event));
      }
      void notifier.submit(JSON.stringify({ a: accountId, c: event.conversationId, o: origin, k }));
    },
    subscribe: (accountId, listener) => hub.on(accountId, listener),
    publishVisitor(conversationId, event) {
      if (closed) return;
      // Delivered here at once (visitors connected to this node), and to the other nodes by NOTIFY.
      queueMicrotask(() => visitors.emit(conversationId, event));
      void visitorNotifier.submit(JSON.stringify({ v: conversationId, t: event.type, o: origin }));
    },
    subscribeVisitor: (conversationId, listener) => visitors.on(conversationId, listener),
    publishSessionsEnded(accountId) {
      if (closed) return;
      // Here at once, and to the other nodes by NOTIFY on the live channel.
      queueMicrotask(() => sessions.emit(accountId, { accountId }));
      void notifier.submit(JSON.stringify({ a: accountId, s: 1, o: origin }));
    },
    subscribeSessionsEnded: (accountId, listener) => sessions.on(accountId, listener),
    publishPresence(beat) {
      if (closed) return;
      // Here at once, and to the other nodes by NOTIFY on their own channel.
      queueMicrotask(() => presence.emit(PRESENCE_CHANNEL, beat));
      void presenceNotifier.submit(JSON.stringify({ ...beat, o: origin }));
    },
    subscribePresence: (listener) => presence.on(PRESENCE_CHANNEL, listener),
    async close() {
      closed = true;
      listening = false;
      hub.clear();
      visitors.clear();
      sessions.clear();
      presence.clear();
      await client?.end().catch(() => {});
    },
  };
}
