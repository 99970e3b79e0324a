// Password guessing through the web app's door (sign-in, password change) is slowed by growing
// delays, never by a lock-out someone else can trigger:
//   - failures are counted per (normalised e-mail, client address) for sign-in and per (user,
//     address) for the password change; after PAIR_FREE_FAILURES of them in a day, the pair's next
//     attempt must wait 5 s, then 10 s, 20 s, … up to 15 minutes after its latest failure, and is
//     answered 429 RATE_LIMITED with Retry-After without the password being checked;
//   - an address with ADDRESS_MAX_FAILURES failures in 15 minutes (spraying many e-mails) waits too,
//     except for an e-mail that signed in successfully from that address in the last 30 days: the
//     people who use that office or that NAT keep signing in.
// The counts live in the database (sign_in_failures), so every API node enforces the same limits on
// SQLite and on PostgreSQL. Attempts of one pair are also taken one at a time per process, so a
// burst of parallel guesses cannot all pass the check before the first failure is written.
import type { Db } from "../../platform/db/index.ts";
import { AppError } from "../../platform/errors.ts";
import * as users from "./users-repo.ts";

export const PAIR_FREE_FAILURES = 5;
export const PAIR_BASE_DELAY_MS = 5_000;
export const PAIR_MAX_DELAY_MS = 15 * 60_000;
export const PAIR_WINDOW_MS = 24 * 3600_000;
export const ADDRESS_WINDOW_MS = 15 * 60_000;
export const ADDRESS_MAX_FAILURES = 100;
export const KNOWN_ADDRESS_MS = 30 * 24 * 3600_000;

/** The wait a pair with `failures` recent failures owes after its latest one. */
export function pairDelayMs(failures: number): number {
  if (failures < PAIR_FREE_FAILURES) return 0;
  const doublings = Math.min(failures - PAIR_FREE_FAILURES, 20);
  return Math.min(PAIR_BASE_DELAY_MS * 2 ** doublings, PAIR_MAX_DELAY_MS);
}

function refuse(waitMs: number, what: string): never {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  throw new AppError("RATE_LIMITED", `Too many failed ${what}; try again in ${seconds} seconds`, {
    "retry-after": String(seconds),
  });
}

/** Throws 429 while the key (a pair) owes a wait after its recent failures. */
export async function requirePairAllowed(db: Db, key: string, what: string, now = Date.now()): Promise<void> {
  const { count, last } = await users.failureStats(db.kysely, key, now - PAIR_WINDOW_MS);
  const wait = last === null ? 0 : last + pairDelayMs(count) - now;
  if (wait > 0) refuse(wait, what);
}

/** Throws 429 while the address is over its ceiling, unless the e-mail signed in from it before. */
export async function requireAddressAllowed(
  db: Db,
  addressKey: string,
  knownKey: string,
  now = Date.now(),
): Promise<void> {
  const since = now - ADDRESS_WINDOW_MS;
  const nth = await users.nthLatestFailure(db.kysely, addressKey, since, ADDRESS_MAX_FAILURES);
  if (nth === null) return;
  if ((await users.countFailuresSince(db.kysely, knownKey, now - KNOWN_ADDRESS_MS)) > 0) return;
  refuse(nth + ADDRESS_WINDOW_MS - now, "sign-in attempts from this address");
}

const inFlight = new Map<string, Promise<unknown>>();

/** Runs `fn` after the attempts of the same key already running in this process have finished. */
export async function oneAtATime<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const before = inFlight.get(key);
  const run = (before ?? Promise.resolve()).catch(() => {}).then(fn);
  const settled = run.catch(() => {});
  inFlight.set(key, settled);
  try {
    return await run;
  } finally {
    if (inFlight.get(key) === settled) inFlight.delete(key);
  }
}
