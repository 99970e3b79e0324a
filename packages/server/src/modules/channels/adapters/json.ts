// Readers for a provider's JSON payloads, which an adapter must never trust to have the documented
// shape: a missing or mistyped part reads as empty, so a malformed payload yields no events.
export type Json = Record<string, unknown>;

export const obj = (v: unknown): Json => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {});
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** A non-empty string, else null. */
export const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
