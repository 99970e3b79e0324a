// The built-in engine of a campaign, kept while its knowledge is unchanged: shared by the bot's reply
// job and the campaign preview, so neither imports the other for it. A campaign's knowledge is its
// own entries, then the passages of its knowledge sources (knowledge module), each a `text` entry
// under its heading that remembers its source.
import type { AppContext } from "../../context.ts";
import type { CampaignRow } from "../../platform/db/schema.ts";
import { campaignPassages, passagesSignature } from "../knowledge/repo.ts";
import { type BuiltinEngine, createBuiltinEngine, type KnowledgeEntry } from "./engine-builtin.ts";
import { parseKnowledge } from "./service.ts";

// Building a BM25 index per message would waste work: keep one engine per campaign while its
// knowledge text and its sources' signature (each source with passages and when it last changed) are
// unchanged (compared exactly, so an edit, a sync or a delete is seen at once). Bounded by count and
// by the total size of the cached knowledge, least recently used out first; owned by the app instance.
const ENGINE_CACHE_SIZE = 200;
const ENGINE_CACHE_CHARS = 20_000_000;

export type CachedEngine = {
  knowledge: string;
  sources: string;
  chars: number;
  entries: KnowledgeEntry[];
  /** How many of the entries are the campaign's own (the rest are its sources' passages). */
  ownEntries: number;
  engine: BuiltinEngine;
};

class EngineCache {
  private readonly engines = new Map<string, CachedEngine>();
  private chars = 0;

  get(campaign: CampaignRow, sources: string): CachedEngine | null {
    const hit = this.engines.get(campaign.id);
    if (!hit) return null;
    this.engines.delete(campaign.id);
    if (hit.knowledge === campaign.knowledge && hit.sources === sources) {
      this.engines.set(campaign.id, hit);
      return hit;
    }
    this.chars -= hit.chars;
    return null;
  }

  set(campaignId: string, built: CachedEngine): void {
    const old = this.engines.get(campaignId);
    if (old) {
      this.engines.delete(campaignId);
      this.chars -= old.chars;
    }
    this.engines.set(campaignId, built);
    this.chars += built.chars;
    while (
      this.engines.size > 1 &&
      (this.engines.size > ENGINE_CACHE_SIZE || this.chars > ENGINE_CACHE_CHARS)
    ) {
      const [oldestId, oldest] = this.engines.entries().next().value as [string, CachedEngine];
      this.engines.delete(oldestId);
      this.chars -= oldest.chars;
    }
  }

  clear(): void {
    this.engines.clear();
    this.chars = 0;
  }
}

export async function knowledgeOf(ctx: AppContext, campaign: CampaignRow): Promise<CachedEngine> {
  const cache = ctx.caches.get("bot.engines", () => new EngineCache());
  const sources = await passagesSignature(ctx.db.kysely, campaign.account_id, campaign.id);
  const hit = cache.get(campaign, sources);
  if (hit) return hit;
  const own = parseKnowledge(campaign.knowledge);
  const passages = sources ? await campaignPassages(ctx.db.kysely, campaign.account_id, campaign.id) : [];
  let chars = campaign.knowledge.length;
  const entries: KnowledgeEntry[] = [...own];
  for (const p of passages) {
    chars += p.text.length + (p.heading?.length ?? 0);
    entries.push({
      ...(p.heading ? { question: p.heading } : {}),
      text: p.text,
      source: { id: p.sourceId, name: p.sourceName },
    });
  }
  const built: CachedEngine = {
    knowledge: campaign.knowledge,
    sources,
    chars,
    entries,
    ownEntries: own.length,
    engine: createBuiltinEngine(entries),
  };
  cache.set(campaign.id, built);
  return built;
}
