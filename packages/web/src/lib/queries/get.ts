// A plain read of the app's API: GET `path`, cached under `queryKey` (not fetched while `enabled` is
// false). `getQuery` gives TanStack's queryOptions for a hook that needs more (polling, retries).
import { type QueryKey, queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "../api.ts";

export function getQuery<T>(queryKey: QueryKey, path: string) {
  return queryOptions({ queryKey, queryFn: () => api<T>("GET", path) });
}

export function useGet<T>(queryKey: QueryKey, path: string, enabled = true) {
  return useQuery({ ...getQuery<T>(queryKey, path), enabled });
}
