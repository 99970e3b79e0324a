// Lists of contacts (/app/api/lists*): the lists page, a list and its members, and membership changes
// (from the list's page or the contact's), each refreshing what shows it.
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, errorMessage } from "../api.ts";
import type { ContactJson, ListJson, Page } from "../api-types.ts";
import { notify } from "../notify.ts";
import { contactKeys, listKeys } from "./keys.ts";
import { nextCursor } from "./paging.ts";

export { listKeys } from "./keys.ts";

export function useListPages() {
  return useInfiniteQuery({
    queryKey: listKeys.pages(),
    queryFn: ({ pageParam }) =>
      api<Page<ListJson>>("GET", `/lists?limit=100${pageParam ? `&cursor=${pageParam}` : ""}`),
    initialPageParam: "",
    getNextPageParam: nextCursor,
  });
}

/** Every list (one page of up to 200), for a select. */
export function useListChoices(enabled = true) {
  return useQuery({
    queryKey: listKeys.choices(),
    queryFn: () => api<Page<ListJson>>("GET", "/lists?limit=200"),
    enabled,
  });
}

export function useList(listId: string) {
  return useQuery({
    queryKey: listKeys.detail(listId),
    queryFn: () => api<ListJson>("GET", `/lists/${listId}`),
  });
}

export function useListMembers(listId: string) {
  return useInfiniteQuery({
    queryKey: listKeys.members(listId),
    queryFn: ({ pageParam }) =>
      api<Page<ContactJson>>(
        "GET",
        `/lists/${listId}/contacts?limit=50${pageParam ? `&cursor=${pageParam}` : ""}`,
      ),
    initialPageParam: "",
    getNextPageParam: nextCursor,
  });
}

function useRefreshList() {
  const client = useQueryClient();
  return (listId: string) => {
    void client.invalidateQueries({ queryKey: listKeys.detail(listId) });
    void client.invalidateQueries({ queryKey: listKeys.all });
  };
}

export function useCreateList() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api<ListJson>("POST", "/lists", { name }),
    onSuccess: (list) => {
      notify(`List "${list.name}" created`);
      void client.invalidateQueries({ queryKey: listKeys.all });
    },
  });
}

export function useRenameList(listId: string) {
  const refresh = useRefreshList();
  return useMutation({
    mutationFn: (name: string) => api<ListJson>("PATCH", `/lists/${listId}`, { name }),
    onSuccess: () => refresh(listId),
  });
}

export function useDeleteList(listId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api("DELETE", `/lists/${listId}`),
    onSuccess: () => {
      notify("List deleted; its contacts are kept");
      void client.invalidateQueries({ queryKey: listKeys.all });
    },
  });
}

export interface Membership {
  listId: string;
  contactId: string;
}

/** Adds a contact to a list, or takes it out; the list and the contact are refreshed either way. */
export function useListMembership(change: "add" | "remove") {
  const client = useQueryClient();
  const refresh = useRefreshList();
  return useMutation({
    mutationFn: ({ listId, contactId }: Membership) =>
      change === "add"
        ? api("POST", `/lists/${listId}/contacts`, { contactId })
        : api("DELETE", `/lists/${listId}/contacts/${contactId}`),
    onSuccess: (_, { listId, contactId }) => {
      refresh(listId);
      void client.invalidateQueries({ queryKey: contactKeys.detail(contactId) });
      void client.invalidateQueries({ queryKey: contactKeys.all });
    },
    onError: (err) => notify(errorMessage(err), "error"),
  });
}

/** Adds several contacts to a list in one call (members already there are left as they are). */
export function useAddListMembers() {
  const client = useQueryClient();
  const refresh = useRefreshList();
  return useMutation({
    mutationFn: ({ listId, contactIds }: { listId: string; contactIds: string[] }) =>
      api<{ added: number; alreadyMembers: number; notFound: string[] }>(
        "POST",
        `/lists/${listId}/contacts/bulk`,
        { contactIds },
      ),
    onSuccess: (result, { listId }) => {
      const already = result.alreadyMembers > 0 ? ` (${result.alreadyMembers} already there)` : "";
      notify(`${result.added} ${result.added === 1 ? "contact" : "contacts"} added to the list${already}`);
      refresh(listId);
      void client.invalidateQueries({ queryKey: contactKeys.all });
      void client.invalidateQueries({ queryKey: ["contact"] });
    },
    onError: (err) => notify(errorMessage(err), "error"),
  });
}
