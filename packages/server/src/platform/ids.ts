// Prefixed, time-sortable ids from this one helper: ULID layout (48-bit millisecond time + 80 random
// bits, Crockford base32, lower-case), monotonic within a millisecond. Written here rather than taken
// from a package because id generation is on every hot path: randomness comes from a pooled buffer
// instead of one crypto call per character.
import { randomFillSync } from "node:crypto";

export const ID_PREFIXES = {
  account: "acc",
  user: "usr",
  apiKey: "key",
  job: "job",
  contact: "ct",
  list: "ls",
  conversation: "cv",
  message: "msg",
  attempt: "att",
  campaign: "cmp",
  creditTransaction: "ctx",
  event: "evt",
  import: "imp",
  request: "req",
  channel: "ch",
  visitor: "vis",
  functionCall: "fnc",
  notification: "ntf",
  notificationEmail: "nem",
  note: "nt",
  conversationEvent: "cve",
  cannedReply: "cr",
  auditEntry: "aud",
  knowledgeSource: "ks",
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const RANDOM_CHARS = 16;
const pool = Buffer.alloc(4096);
let poolPos = pool.length;
let lastTime = -1;
const randomDigits = new Uint8Array(RANDOM_CHARS);

function refillRandom(): void {
  for (let i = 0; i < RANDOM_CHARS; i++) {
    if (poolPos >= pool.length) {
      randomFillSync(pool);
      poolPos = 0;
    }
    randomDigits[i] = pool[poolPos++]! & 31;
  }
}

/** Adds one to the random part, so ids made in the same millisecond still sort in creation order. */
function incrementRandom(): void {
  for (let i = RANDOM_CHARS - 1; i >= 0; i--) {
    if (randomDigits[i]! < 31) {
      randomDigits[i]!++;
      return;
    }
    randomDigits[i] = 0;
  }
}

export function newId(kind: IdKind): string {
  const now = Date.now();
  if (now > lastTime) {
    lastTime = now;
    refillRandom();
  } else {
    incrementRandom();
  }
  let time = "";
  let t = lastTime;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  let random = "";
  for (let i = 0; i < RANDOM_CHARS; i++) random += ALPHABET[randomDigits[i]!];
  return `${ID_PREFIXES[kind]}_${time}${random}`;
}
