import { type QueryKey, useInfiniteQuery } from "@tanstack/react-query";
import { api } from "../api.ts";
import type { Page } from "../api-types.ts";

/** getNextPageParam of the cursor-paged lists: the next cursor while there is more. */
export function nextCursor(last: Page<unknown>): string | undefined {
  return last.hasMore ? (last.nextCursor ?? undefined) : undefined;
}

/** A cursor-paged list read a page of `limit` at a time, narrowed by `filters` (a search, a label…). */
export function usePagedList<P extends Page<unknown>>(
  queryKey: QueryKey,
  path: string,
  limit: number,
  filters?: URLSearchParams,
) {
  return useInfiniteQuery({
    queryKey,
    queryFn: ({ pageParam }) => {
      const page = new URLSearchParams(filters);
      page.set("limit", String(limit));
      if (pageParam) page.set("cursor", pageParam);
      return api<P>("GET", `${path}?${page}`);
    },
    initialPageParam: "",
    getNextPageParam: nextCursor,
  });
}
