// A plain read of the app's API: GET `path`, cached under `queryKey` (not fetched while `enabled` is
// false). A read that needs more (polling, retries) calls useQuery itself.
import { type QueryKey, useQuery } from "@tanstack/react-query";
import { api } from "../api.ts";

export function useGet<T>(queryKey: QueryKey, path: string, enabled = true) {
  return useQuery({ queryKey, queryFn: () => api<T>("GET", path), enabled });
}
