// Lists of contacts (/app/api/lists*): the lists page, a list and its members, and membership changes
// (from the list's page or the contact's), each refreshing what shows it.
import type { QueryKey } from "@tanstack/react-query";
import { api } from "../api.ts";
import type { ContactJson, ListJson, Page } from "../api-types.ts";
import { useGet } from "./get.ts";
import { contactKeys, listKeys } from "./keys.ts";
import { useAppMutation } from "./mutation.ts";
import { usePagedList } from "./paging.ts";

export { listKeys } from "./keys.ts";

export function useListPages() {
  return usePagedList<Page<ListJson>>(listKeys.pages(), "/lists", 100);
}

/** Every list (one page of up to 200), for a select. */
export function useListChoices(enabled = true) {
  return useGet<Page<ListJson>>(listKeys.choices(), "/lists?limit=200", enabled);
}

export function useList(listId: string) {
  return useGet<ListJson>(listKeys.detail(listId), `/lists/${listId}`);
}

export function useListMembers(listId: string) {
  return usePagedList<Page<ContactJson>>(listKeys.members(listId), `/lists/${listId}/contacts`, 50);
}

/** What a list's change may show elsewhere: the list (with its members) and the lists page. */
function listRefreshKeys(listId: string): QueryKey[] {
  return [listKeys.detail(listId), listKeys.all];
}

export function useCreateList() {
  return useAppMutation({
    mutationFn: (name: string) => api<ListJson>("POST", "/lists", { name }),
    notice: (list) => `List "${list.name}" created`,
    invalidates: [listKeys.all],
  });
}

export function useRenameList(listId: string) {
  return useAppMutation({
    mutationFn: (name: string) => api<ListJson>("PATCH", `/lists/${listId}`, { name }),
    invalidates: listRefreshKeys(listId),
  });
}

export function useDeleteList(listId: string) {
  return useAppMutation({
    mutationFn: () => api("DELETE", `/lists/${listId}`),
    notice: "List deleted; its contacts are kept",
    invalidates: [listKeys.all],
  });
}

export interface Membership {
  listId: string;
  contactId: string;
}

/** Adds a contact to a list, or takes it out; the list and the contact are refreshed either way. */
export function useListMembership(change: "add" | "remove") {
  return useAppMutation({
    mutationFn: ({ listId, contactId }: Membership) =>
      change === "add"
        ? api("POST", `/lists/${listId}/contacts`, { contactId })
        : api("DELETE", `/lists/${listId}/contacts/${contactId}`),
    invalidates: (_, { listId, contactId }) => [
      ...listRefreshKeys(listId),
      contactKeys.detail(contactId),
      contactKeys.all,
    ],
    notifyError: true,
  });
}

/** Adds several contacts to a list in one call (members already there are left as they are). */
export function useAddListMembers() {
  return useAppMutation({
    mutationFn: ({ listId, contactIds }: { listId: string; contactIds: string[] }) =>
      api<{ added: number; alreadyMembers: number; notFound: string[] }>(
        "POST",
        `/lists/${listId}/contacts/bulk`,
        { contactIds },
      ),
    notice: (result) => {
      const already = result.alreadyMembers > 0 ? ` (${result.alreadyMembers} already there)` : "";
      return `${result.added} ${result.added === 1 ? "contact" : "contacts"} added to the list${already}`;
    },
    invalidates: (_, { listId }) => [...listRefreshKeys(listId), contactKeys.all, ["contact"]],
    notifyError: true,
  });
}
