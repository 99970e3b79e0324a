import type { Page } from "../api-types.ts";

/** getNextPageParam of the cursor-paged lists: the next cursor while there is more. */
export function nextCursor(last: Page<unknown>): string | undefined {
  return last.hasMore ? (last.nextCursor ?? undefined) : undefined;
}
