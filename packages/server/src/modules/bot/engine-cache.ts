// The built-in engine of a campaign, kept while its knowledge is unchanged: shared by the bot's reply
// job and the campaign preview, so neither imports the other for it.
import type { AppContext } from "../../context.ts";
import type { CampaignRow } from "../../platform/db/schema.ts";
import { type BuiltinEngine, createBuiltinEngine, type KnowledgeEntry } from "./engine-builtin.ts";
import { parseKnowledge } from "./service.ts";

// Building a BM25 index per message would waste work: keep one engine per campaign while its
// knowledge text is unchanged (compared exactly, so an edit is seen at once). Bounded by count and by
// the total size of the cached knowledge, least recently used out first; owned by the app instance.
const ENGINE_CACHE_SIZE = 200;
const ENGINE_CACHE_CHARS = 20_000_000;

export type CachedEngine = { knowledge: string; entries: KnowledgeEntry[]; engine: BuiltinEngine };

class EngineCache {
  private readonly engines = new Map<string, CachedEngine>();
  private chars = 0;

  of(campaign: CampaignRow): CachedEngine {
    const hit = this.engines.get(campaign.id);
    if (hit) {
      this.engines.delete(campaign.id);
      if (hit.knowledge === campaign.knowledge) {
        this.engines.set(campaign.id, hit);
        return hit;
      }
      this.chars -= hit.knowledge.length;
    }
    const entries = parseKnowledge(campaign.knowledge);
    const built = { knowledge: campaign.knowledge, entries, engine: createBuiltinEngine(entries) };
    this.engines.set(campaign.id, built);
    this.chars += built.knowledge.length;
    while (
      this.engines.size > 1 &&
      (this.engines.size > ENGINE_CACHE_SIZE || this.chars > ENGINE_CACHE_CHARS)
    ) {
      const [oldestId, oldest] = this.engines.entries().next().value as [string, CachedEngine];
      this.engines.delete(oldestId);
      this.chars -= oldest.knowledge.length;
    }
    return built;
  }

  clear(): void {
    this.engines.clear();
    this.chars = 0;
  }
}

export function knowledgeOf(ctx: AppContext, campaign: CampaignRow): CachedEngine {
  return ctx.caches.get("bot.engines", () => new EngineCache()).of(campaign);
}
