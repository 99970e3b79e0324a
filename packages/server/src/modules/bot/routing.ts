// Which campaign answers an inbound message. Pure: the job loads the candidates, this decides.
import type { RoutingCandidate } from "../campaigns/repo.ts";

export type RouteReason = "explicit" | "outgoing" | "keyword" | "default";

export interface Route {
  campaignId: string;
  reason: RouteReason;
}

/** Lower case, accents removed, so "Café" matches the keyword "cafe". */
function fold(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const matcherCache = new Map<string, RegExp | null>();

/**
 * One regular expression per keyword list: a keyword matches as a whole word or phrase (not inside
 * another word: "art" does not match "start"), case- and accent-insensitively.
 */
export function keywordMatcher(keywordsJson: string): RegExp | null {
  const cached = matcherCache.get(keywordsJson);
  if (cached !== undefined) return cached;
  let keywords: unknown;
  try {
    keywords = JSON.parse(keywordsJson);
  } catch {
    keywords = [];
  }
  const parts = (Array.isArray(keywords) ? keywords : [])
    .filter((k): k is string => typeof k === "string" && k.trim() !== "")
    .map((k) => escapeRegExp(fold(k.trim())).replace(/\s+/g, "\\s+"));
  const re = parts.length
    ? new RegExp(`(?<![\\p{L}\\p{N}])(?:${parts.join("|")})(?![\\p{L}\\p{N}])`, "u")
    : null;
  if (matcherCache.size > 1000) matcherCache.clear();
  matcherCache.set(keywordsJson, re);
  return re;
}

/**
 * The order of choice: the message's explicit campaignId (when it is one of this account's campaigns,
 * whatever its status: a paused or draft campaign then means no reply); else the campaign whose
 * outgoing first message reached this contact last (its replies belong to it); else the oldest live campaign
 * with a keyword in the body; else the account's default campaign. Null only when the account has no
 * campaign at all. (The conversation records the campaign that answered; it does not make later
 * messages stick to it: see docs/decisions/bot.md, Routing.)
 */
export function chooseCampaign(
  candidates: RoutingCandidate[],
  message: { campaignId: string | null; body: string },
  /** The campaign whose outgoing message reached this contact last: its replies go there. */
  outgoingCampaignId: string | null = null,
): Route | null {
  if (message.campaignId) {
    const explicit = candidates.find((c) => c.id === message.campaignId);
    if (explicit) return { campaignId: explicit.id, reason: "explicit" };
  }
  if (outgoingCampaignId) {
    const outgoing = candidates.find((c) => c.id === outgoingCampaignId);
    if (outgoing) return { campaignId: outgoing.id, reason: "outgoing" };
  }
  const body = fold(message.body);
  // Candidates arrive oldest first, so the first match is the oldest live campaign.
  for (const c of candidates) {
    if (c.status !== "live") continue;
    const re = keywordMatcher(c.keywords);
    if (re?.test(body)) return { campaignId: c.id, reason: "keyword" };
  }
  const def = candidates.find((c) => Number(c.is_default) === 1) ?? null;
  return def ? { campaignId: def.id, reason: "default" } : null;
}
