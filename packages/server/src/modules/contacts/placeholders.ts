// A contact's fields in a message a business wrote once for many people (an outgoing campaign's first
// message, a follow-up): `{{firstName}}`, `{{firstName|there}}` (a fallback when the field is empty),
// lastName, phone, email. Names are matched in any case; an unknown name is left as written.
// `extra` adds values that are not the contact's, like `{{openingTime}}` (the account's next opening).
import type { ContactRow } from "../../platform/db/schema.ts";

export function render(
  template: string,
  c: Pick<ContactRow, "first_name" | "last_name" | "phone" | "email">,
  extra: Record<string, string> = {},
): string {
  const fields: Record<string, string | null> = {
    firstname: c.first_name,
    lastname: c.last_name,
    phone: c.phone,
    email: c.email,
  };
  for (const [name, value] of Object.entries(extra)) fields[name.toLowerCase()] = value;
  return template.replace(/\{\{\s*(\w+)\s*(?:\|([^}]*))?\}\}/g, (whole, name: string, fallback?: string) => {
    const key = name.toLowerCase();
    if (!(key in fields)) return whole;
    const value = fields[key]?.trim();
    return value ? value : (fallback ?? "").trim();
  });
}
