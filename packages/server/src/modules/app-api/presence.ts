// Who is viewing or typing in a conversation, so two teammates don't answer at once. Ephemeral by
// design: no table. Each browser sends heartbeats; every heartbeat goes through the live path to every
// API node (in-process on SQLite, LISTEN/NOTIFY on PostgreSQL), and each node keeps its own board of
// them, expiring entries on its own clock (viewing ~30 s, typing ~6 s after the last heartbeat). A
// change of who is where is pushed to that account's event streams on the node (event-routes.ts).
import type { Live, PresenceBeat } from "../../platform/live.ts";

export type PresenceState = "viewing" | "typing";

export interface PresencePerson {
  userId: string;
  name: string;
  state: PresenceState;
}

/** The people in one conversation changed (someone came, started or stopped typing, left, expired). */
export type PresenceChangeListener = (conversationId: string, people: PresencePerson[]) => void;

interface Entry {
  name: string;
  viewingUntil: number;
  typingUntil: number;
}

/** How often expired entries are swept: a fraction of the typing time, at most once a second. */
const sweepEvery = (typingMs: number) => Math.max(100, Math.min(1000, Math.floor(typingMs / 4)));

export class PresenceBoard {
  /** accountId → conversationId → userId → entry. */
  private readonly accounts = new Map<string, Map<string, Map<string, Entry>>>();
  /** What each conversation's listeners were last told (to push only real changes). */
  private readonly lastSent = new Map<string, string>();
  private readonly listeners = new Map<string, Set<PresenceChangeListener>>();
  private sweeper: ReturnType<typeof setInterval> | null = null;
  private readonly unsubscribe: () => void;
  private readonly live: Live;
  private readonly ttl: { viewingMs: number; typingMs: number };

  constructor(live: Live, ttl: { viewingMs: number; typingMs: number }) {
    this.live = live;
    this.ttl = ttl;
    this.unsubscribe = live.subscribePresence((beat) => this.apply(beat));
  }

  /** A heartbeat from this node: to every node's board (this one's included), via the live path. */
  beat(beat: PresenceBeat): void {
    this.live.publishPresence(beat);
  }

  /** Everyone in the conversation now, optionally leaving one person (the one asking) out. */
  people(accountId: string, conversationId: string, except?: string): PresencePerson[] {
    const entries = this.accounts.get(accountId)?.get(conversationId);
    if (!entries) return [];
    const now = Date.now();
    const out: PresencePerson[] = [];
    for (const [userId, e] of entries) {
      if (userId === except) continue;
      const state: PresenceState | null =
        e.typingUntil > now ? "typing" : e.viewingUntil > now ? "viewing" : null;
      if (state) out.push({ userId, name: e.name, state });
    }
    // A stable order: the same people read the same way on every push.
    return out.sort((a, b) => a.userId.localeCompare(b.userId));
  }

  /** This node's changes for one account's conversations. Returns the unsubscribe. */
  subscribe(accountId: string, listener: PresenceChangeListener): () => void {
    let set = this.listeners.get(accountId);
    if (!set) {
      set = new Set();
      this.listeners.set(accountId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(accountId) === set) this.listeners.delete(accountId);
    };
  }

  close(): void {
    this.unsubscribe();
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    this.accounts.clear();
    this.lastSent.clear();
    this.listeners.clear();
  }

  private apply(beat: PresenceBeat): void {
    const { accountId, conversationId, userId } = beat;
    let conversations = this.accounts.get(accountId);
    if (!conversations) {
      if (beat.state === "left") return;
      conversations = new Map();
      this.accounts.set(accountId, conversations);
    }
    let entries = conversations.get(conversationId);
    if (!entries) {
      if (beat.state === "left") return;
      entries = new Map();
      conversations.set(conversationId, entries);
    }
    const now = Date.now();
    if (beat.state === "left") {
      entries.delete(userId);
      if (entries.size === 0) conversations.delete(conversationId);
      if (conversations.size === 0) this.accounts.delete(accountId);
    } else {
      const e = entries.get(userId) ?? { name: beat.name, viewingUntil: 0, typingUntil: 0 };
      e.name = beat.name;
      // Typing is viewing too; a viewing heartbeat leaves a typing one to run out on its own.
      e.viewingUntil = now + this.ttl.viewingMs;
      if (beat.state === "typing") e.typingUntil = now + this.ttl.typingMs;
      entries.set(userId, e);
      this.startSweeping();
    }
    this.changed(accountId, conversationId);
  }

  /** Tells the account's listeners when who is in the conversation (or how) differs from before. */
  private changed(accountId: string, conversationId: string): void {
    const people = this.people(accountId, conversationId);
    const key = `${accountId}/${conversationId}`;
    const text = JSON.stringify(people);
    if ((this.lastSent.get(key) ?? "[]") === text) return;
    if (people.length === 0) this.lastSent.delete(key);
    else this.lastSent.set(key, text);
    for (const listener of this.listeners.get(accountId) ?? []) {
      try {
        listener(conversationId, people);
      } catch {}
    }
  }

  private startSweeping(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => this.sweep(), sweepEvery(this.ttl.typingMs));
    this.sweeper.unref();
  }

  /** Drops what ran out and tells the listeners; stops when nothing is left to expire. */
  private sweep(): void {
    const now = Date.now();
    for (const [accountId, conversations] of this.accounts) {
      for (const [conversationId, entries] of conversations) {
        for (const [userId, e] of entries) {
          if (e.viewingUntil <= now && e.typingUntil <= now) entries.delete(userId);
        }
        if (entries.size === 0) conversations.delete(conversationId);
        // Also when no one left: a typing heartbeat that ran out turns into viewing (changed() tells
        // the listeners only what differs from what they were last told).
        this.changed(accountId, conversationId);
      }
      if (conversations.size === 0) this.accounts.delete(accountId);
    }
    if (this.accounts.size === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = null;
    }
  }
}
