import { useRef } from "react";

/**
 * Edits a list of drafts a parent form owns (follow-up steps, bot functions): change one, append one
 * with a fresh React key, remove one. Keys stay stable while rows are added and removed.
 */
export function useDraftList<T extends { key: number }>(drafts: T[], onChange: (drafts: T[]) => void) {
  const nextKey = useRef(drafts.length);
  return {
    set: (i: number, patch: Partial<T>) => onChange(drafts.map((d, j) => (j === i ? { ...d, ...patch } : d))),
    add: (draft: Omit<T, "key">) => onChange([...drafts, { ...draft, key: nextKey.current++ } as T]),
    remove: (i: number) => onChange(drafts.filter((_, j) => j !== i)),
  };
}
