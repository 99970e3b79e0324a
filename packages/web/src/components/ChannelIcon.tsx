// A small icon per channel type, with the type's name for screen readers and as a tooltip.

import type { ChannelKind } from "../lib/api-types.ts";
import { channelKindLabel } from "../lib/channels.ts";
import { LineIcon } from "./LineIcon.tsx";

const PATHS: Record<ChannelKind | "deleted", string[]> = {
  // A speech bubble in a browser window.
  web: ["M3 5h18v14H3z", "M3 9h18", "M8 13h8", "M8 16h5"],
  // A plug: the business's own integration.
  custom: ["M9 3v5", "M15 3v5", "M6 8h12v3a6 6 0 0 1-12 0z", "M12 17v4"],
  whatsapp: ["M4 20l1.5-4.5A8 8 0 1 1 8.5 19z", "M9 10c0 3 2 5 5 5"],
  telegram: ["M21 4L3 11l6 2 2 6 3-4 5 4z", "M9 13l12-9"],
  twilio_sms: ["M4 5h16v11H9l-5 4z", "M8 9h8", "M8 12h5"],
  messenger: ["M12 3a9 8 0 0 0-5 14.6V21l3.3-1.8A9 8 0 1 0 12 3z", "M7 13l3.5-3.5 3 2.5L17 9"],
  instagram: ["M4 4h16v16H4z", "M12 8a4 4 0 1 0 0 8 4 4 0 0 0 0-8z", "M17 7h.01"],
  deleted: ["M4 4h16v16H4z", "M9 9l6 6", "M15 9l-6 6"],
};

export function ChannelIcon({ kind, size = 16 }: { kind: ChannelKind | null; size?: number }) {
  const label = channelKindLabel(kind);
  return (
    <LineIcon size={size} label={label}>
      {PATHS[kind ?? "deleted"].map((d) => (
        <path key={d} d={d} />
      ))}
    </LineIcon>
  );
}
