// How the app names a contact: its name, else — for a chat contact, who has none — its id on its
// channel and the channel ("Widget visitor · vis_…", "+15551234567 · WhatsApp"), so chat contacts
// are not a column of identical "Unnamed contact" rows. Pure, shared by every place that shows one.

import type { ChannelKind } from "./api-types.ts";
import { channelKindLabel } from "./channels.ts";

export interface NameableContact {
  /** "First Last" as the inbox sends it; or the two parts as the contacts API sends them. */
  name?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  phone?: string | null;
  email?: string | null;
  /** The sender id on its channel as stored ("web:vis_…", "tg:123", or a custom channel's fromId). */
  fromId?: string | null;
  /** The channel of its (latest) conversation; null or absent when unknown. */
  channelType?: ChannelKind | null;
}

/** The built-in channels' prefixes of a sender id (channels/adapters on the server). */
const PREFIXES: Record<string, ChannelKind> = {
  web: "web",
  tg: "telegram",
  fb: "messenger",
  ig: "instagram",
  tw: "twilio_sms",
};

/** The contact's id on its channel without the stored prefix, and the channel the prefix names. */
export function channelIdOf(
  fromId: string | null | undefined,
): { id: string; kind: ChannelKind | null } | null {
  if (!fromId) return null;
  const colon = fromId.indexOf(":");
  const kind = colon > 0 ? PREFIXES[fromId.slice(0, colon)] : undefined;
  return kind ? { id: fromId.slice(colon + 1), kind } : { id: fromId, kind: null };
}

export function displayContactName(c: NameableContact): string {
  const name = (c.name ?? [c.firstName, c.lastName].filter((p) => p?.trim()).join(" ")).trim();
  if (name) return name;
  const sender = channelIdOf(c.fromId);
  const kind = c.channelType ?? sender?.kind ?? null;
  if (kind === "web" && sender) return `Widget visitor · ${sender.id}`;
  const id = c.phone || sender?.id || c.email;
  if (!id) return "Unnamed contact";
  return kind ? `${id} · ${channelKindLabel(kind)}` : id;
}
