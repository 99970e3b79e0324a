// Repeated failed authentication from one client address is refused for a while: guessing keys costs
// a database look-up per try, and an attacker's tries must not cost everyone else. Counted per
// address over a one-minute window. The check reads only this process's memory (nothing on the path
// of a valid key); with Redis, each failure also counts in a shared counter, and the node adopts its
// total, so tries spread across API nodes add up.
import type { Redis } from "ioredis";

const WINDOW_MS = 60_000;
const MAX_TRACKED = 50_000;

export class AuthFailureLimiter {
  private readonly counts = new Map<string, { count: number; resetAt: number }>();
  private readonly limit: number;
  private readonly redis: Redis | null;

  constructor(limit: number, redis: Redis | null) {
    this.limit = limit;
    this.redis = redis;
  }

  /** Seconds until the address may try again, or 0 when it may try now. */
  blockedFor(address: string): number {
    const entry = this.counts.get(address);
    const now = Date.now();
    if (!entry || entry.resetAt <= now || entry.count < this.limit) return 0;
    return Math.ceil((entry.resetAt - now) / 1000);
  }

  async recordFailure(address: string): Promise<void> {
    const now = Date.now();
    let entry = this.counts.get(address);
    if (!entry || entry.resetAt <= now) {
      if (this.counts.size >= MAX_TRACKED) this.counts.clear();
      entry = { count: 0, resetAt: now + WINDOW_MS };
      this.counts.set(address, entry);
    }
    entry.count++;
    if (!this.redis) return;
    try {
      const key = `parley-authfail:${address}`;
      const total = await this.redis.incr(key);
      if (total === 1) await this.redis.pexpire(key, WINDOW_MS);
      entry.count = Math.max(entry.count, total);
    } catch {
      // Redis down: the local count still protects this node.
    }
  }
}
