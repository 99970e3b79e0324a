// The query keys of contacts and lists, apart from their hooks: each invalidates the other's (a
// contact's lists, a list's members), and neither hook module should import the other.
export const contactKeys = {
  all: ["contacts"] as const,
  /** `filters`: the query string of the search (q, label). */
  list: (filters: string) => [...contactKeys.all, filters] as const,
  /** The "add a contact" picker of a list. */
  pick: (search: string) => [...contactKeys.all, "pick", search] as const,
  detail: (contactId: string) => ["contact", contactId] as const,
};

export const listKeys = {
  all: ["lists"] as const,
  /** The lists page, 100 a page. */
  pages: () => [...listKeys.all, "pages"] as const,
  /** Every list at once (up to 200): the choices of a select. */
  choices: () => [...listKeys.all, "all"] as const,
  detail: (listId: string) => ["list", listId] as const,
  members: (listId: string) => [...listKeys.detail(listId), "members"] as const,
};
