// Prefixed, time-sortable ids (ULID: 48-bit time + 80 bits of randomness), from this one helper.
import { monotonicFactory } from "ulid";

const ulid = monotonicFactory();

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
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${ulid().toLowerCase()}`;
}
