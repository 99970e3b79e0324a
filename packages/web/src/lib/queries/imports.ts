// Contact imports (/app/api/imports*): a CSV file's preview with the guessed column mapping, then the
// import itself, polled until it ends (the contact list is refreshed then).
import { useMutation, useQuery } from "@tanstack/react-query";
import { api, CsvBody } from "../api.ts";
import type { ImportPreview, ImportState } from "../api-types.ts";

export type { ImportPreview, ImportState } from "../api-types.ts";

export const importKeys = {
  detail: (importId: string | null) => ["import", importId] as const,
};

export function usePreviewImport() {
  return useMutation({
    mutationFn: (file: File) => api<ImportPreview>("POST", "/imports/preview", new CsvBody(file)),
  });
}

/** Starts an import of `file`; `query`: fileName, map, listId, mode, defaultCountry. */
export function useStartImport() {
  return useMutation({
    mutationFn: ({ file, query }: { file: File; query: URLSearchParams }) =>
      api<ImportState>("POST", `/imports?${query}`, new CsvBody(file)),
  });
}

/** The import's progress, every half second while it runs. */
export function useImportProgress(importId: string | null) {
  return useQuery({
    queryKey: importKeys.detail(importId),
    queryFn: () => api<ImportState>("GET", `/imports/${importId}`),
    enabled: importId !== null,
    refetchInterval: (q) => (q.state.data?.status === "running" || !q.state.data ? 500 : false),
  });
}
