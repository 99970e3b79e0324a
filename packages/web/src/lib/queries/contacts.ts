// Contacts (/app/api/contacts*): the list pages, one contact, and the changes made from the app. One
// key factory, so the pages, the list membership and the imports refresh exactly what they change.
import { type QueryKey, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api.ts";
import type { ChannelKind, ContactJson, Page } from "../api-types.ts";
import { conversationKeys } from "./conversations.ts";
import { useGet } from "./get.ts";
import { contactKeys, listKeys } from "./keys.ts";
import { useAppMutation } from "./mutation.ts";
import { usePagedList } from "./paging.ts";

/** Where the contact last wrote: an unnamed chat contact is named by them (lib/contact-name.ts). */
export interface ContactChannel {
  /** The latest conversation's channel type; null without a conversation or when its channel was deleted. */
  channelType: ChannelKind | null;
  /** The sender id on its channel ("web:vis_…", "tg:…", a custom channel's fromId), or null. */
  fromId: string | null;
}

export type ContactRow = ContactJson & ContactChannel & { conversationId: string | null };

export interface ContactDetail extends ContactChannel {
  contact: ContactJson;
  conversationId: string | null;
  /** The lists it is a member of. */
  lists: Array<{ id: string; name: string }>;
}

export { contactKeys } from "./keys.ts";

/** Contacts matching the search, 50 a page. */
export function useContacts(filters: URLSearchParams) {
  return usePagedList<Page<ContactRow>>(contactKeys.list(filters.toString()), "/contacts", 50, filters);
}

/** The first 20 contacts matching `search`: the choices of a list's "add a contact". */
export function useContactPicker(search: string) {
  return useQuery({
    queryKey: contactKeys.pick(search),
    queryFn: () =>
      api<Page<ContactJson>>(
        "GET",
        `/contacts?limit=20${search.trim() ? `&q=${encodeURIComponent(search.trim())}` : ""}`,
      ),
  });
}

export function useContact(contactId: string) {
  return useGet<ContactDetail>(contactKeys.detail(contactId), `/contacts/${contactId}`);
}

/** What a contact's change may show elsewhere: the contact, the contact list, list member counts. */
function contactRefreshKeys(contactId: string): QueryKey[] {
  return [contactKeys.detail(contactId), contactKeys.all, listKeys.all];
}

/** Creates a contact, or answers the one with the same phone (`created: false`). */
export function useCreateContact() {
  return useAppMutation({
    mutationFn: (body: Record<string, unknown>) =>
      api<ContactJson & { created: boolean }>("POST", "/contacts", body),
    invalidates: [contactKeys.all],
    notice: (c) => (c.created ? "Contact created" : "A contact with this phone already exists: here it is"),
  });
}

/** The contact's details (from its form): "Contact updated"; errors go back to the form. */
export function useUpdateContact(contactId: string) {
  return useAppMutation({
    mutationFn: (body: Record<string, unknown>) => api("PATCH", `/contacts/${contactId}`, body),
    notice: "Contact updated",
    invalidates: contactRefreshKeys(contactId),
  });
}

/** Whether the bot answers the contact (a switch: an error is a notification). */
export function useSetContactBot(contactId: string) {
  return useAppMutation({
    mutationFn: (botActive: boolean) => api("PATCH", `/contacts/${contactId}`, { botActive }),
    invalidates: contactRefreshKeys(contactId),
    notifyError: true,
  });
}

/** The contact's labels, edited inline (the inbox's contact panel): an error is a notification. */
export function useSetContactLabels(contactId: string) {
  return useAppMutation({
    mutationFn: (labels: string[]) => api<ContactJson>("PATCH", `/contacts/${contactId}`, { labels }),
    // The inbox filters by label.
    invalidates: [...contactRefreshKeys(contactId), conversationKeys.all],
    notifyError: true,
  });
}

export function useDeleteContact(contactId: string) {
  const client = useQueryClient();
  return useAppMutation({
    mutationFn: () => api("DELETE", `/contacts/${contactId}`),
    notice: "Contact deleted with its conversation and messages",
    invalidates: [contactKeys.all, conversationKeys.all],
    onSuccess: () => client.removeQueries({ queryKey: contactKeys.detail(contactId) }),
  });
}

export type ContactBulkAction = "label" | "unlabel" | "delete";

/** What a bulk action answers: the rows it applied to, and the ids that were not found. */
export interface BulkResult {
  updated: number;
  notFound: string[];
}

/** Labels, unlabels or deletes the selected contacts in one call; refreshes what shows them. */
export function useBulkContacts() {
  return useAppMutation({
    mutationFn: (body: { ids: string[]; action: ContactBulkAction; label?: string }) =>
      api<BulkResult>("POST", "/contacts/bulk", body),
    notice: (result, { action, label }) => {
      const n = `${result.updated} ${result.updated === 1 ? "contact" : "contacts"}`;
      return action === "delete"
        ? `${n} deleted with their conversations and messages`
        : action === "label"
          ? `Label "${label}" added to ${n}`
          : `Label "${label}" removed from ${n}`;
    },
    // The inbox filters by label, and erased contacts take their conversations with them.
    invalidates: [contactKeys.all, ["contact"], listKeys.all, conversationKeys.all],
    notifyError: true,
  });
}
