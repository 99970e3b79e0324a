// The reply box's "Insert emoji" button. The picker (emoji-picker-react and its emoji data, a few
// hundred kB) is loaded the first time the button is pressed, never with the inbox.
import { ActionIcon, Loader, Popover } from "@mantine/core";
import { lazy, Suspense, useState } from "react";
import { LineIcon } from "../../components/LineIcon.tsx";

const Picker = lazy(() => import("emoji-picker-react"));

function SmileIcon() {
  return (
    <LineIcon size={18}>
      <circle cx="12" cy="12" r="9" />
      <path d="M8.5 14.5a4.5 4.5 0 0 0 7 0" />
      <circle cx="9" cy="10" r="0.8" fill="currentColor" />
      <circle cx="15" cy="10" r="0.8" fill="currentColor" />
    </LineIcon>
  );
}

export function EmojiButton({ onPick }: { onPick: (emoji: string) => void }) {
  const [open, setOpen] = useState(false);
  return (
    <Popover opened={open} onChange={setOpen} position="top-start" trapFocus withinPortal shadow="md">
      <Popover.Target>
        <ActionIcon
          variant="default"
          size="lg"
          aria-label="Insert emoji"
          aria-expanded={open}
          onClick={() => setOpen((o) => !o)}
        >
          <SmileIcon />
        </ActionIcon>
      </Popover.Target>
      <Popover.Dropdown p={0}>
        {open && (
          <Suspense fallback={<Loader size="sm" m="md" aria-label="Loading the emoji" />}>
            <Picker
              onEmojiClick={(e) => {
                onPick(e.emoji);
                setOpen(false);
              }}
              lazyLoadEmojis
              skinTonesDisabled
              previewConfig={{ showPreview: false }}
              width={320}
              height={380}
            />
          </Suspense>
        )}
      </Popover.Dropdown>
    </Popover>
  );
}
