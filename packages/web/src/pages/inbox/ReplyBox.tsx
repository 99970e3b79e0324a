// The reply box under a conversation: a reply to the customer or a private note for the team, with
// @mentions in notes, canned replies after "/" at the start of a reply, and an emoji picker.
import { Box, Button, Combobox, Group, Stack, Text, Textarea, useCombobox } from "@mantine/core";
import { useQueryClient } from "@tanstack/react-query";
import { type KeyboardEvent, useEffect, useRef, useState } from "react";
import { api, errorMessage } from "../../lib/api.ts";
import type { Conversation, Team } from "../../lib/api-types.ts";
import { channelKindLabel } from "../../lib/channels.ts";
import { type CannedReply, useCannedReplies } from "../../lib/queries/canned-replies.ts";
import { type ContactDetail, contactKeys } from "../../lib/queries/contacts.ts";
import { sendTyping, useSendMessage } from "../../lib/queries/conversations.ts";
import { useAddNote } from "../../lib/queries/notes.ts";
import { teamKeys } from "../../lib/queries/team.ts";
import { AttachmentPicker } from "./AttachmentPicker.tsx";
import { fillPlaceholders, matchCannedReplies, typedShortcut } from "./canned.ts";
import { EmojiButton } from "./EmojiButton.tsx";
import { matchTeammates, mentionLabel, typedMention } from "./mentions.ts";
import { LockIcon } from "./NoteItem.tsx";

/** Where a reply goes, in words: the custom channel's replies go to the business's webhook. */
function whereReplies(channelType: Conversation["channelType"]): string {
  if (channelType === "web") return "in the website chat";
  if (channelType === "custom" || channelType === null) return "through your webhook";
  return `on ${channelKindLabel(channelType)}`;
}

/** How often the reply box tells a website chat's visitor that a person is typing (the widget shows it for 5 s). */
const TYPING_EVERY_MS = 2000;

type ComposeMode = "reply" | "note";

const MODES: { value: ComposeMode; label: string }[] = [
  { value: "reply", label: "Reply" },
  { value: "note", label: "Private note" },
];

/**
 * "Reply" or "Private note": a segmented radio group (arrow keys move between the two). Buttons, not
 * labelled inputs, so the reply box stays the one field labelled "Reply".
 */
function ModeSwitch({ mode, onChange }: { mode: ComposeMode; onChange: (mode: ComposeMode) => void }) {
  const buttons = useRef<(HTMLButtonElement | null)[]>([]);
  const onKeyDown = (e: KeyboardEvent<HTMLButtonElement>, i: number) => {
    if (!["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"].includes(e.key)) return;
    e.preventDefault();
    const step = e.key === "ArrowLeft" || e.key === "ArrowUp" ? -1 : 1;
    const next = (i + step + MODES.length) % MODES.length;
    onChange((MODES[next] as (typeof MODES)[number]).value);
    buttons.current[next]?.focus();
  };
  return (
    <Group
      gap={2}
      role="radiogroup"
      aria-label="Who sees it"
      p={3}
      w="fit-content"
      bg="var(--mantine-color-gray-1)"
      style={{ borderRadius: "var(--mantine-radius-md)" }}
    >
      {MODES.map((m, i) => {
        const on = mode === m.value;
        return (
          <Button
            key={m.value}
            ref={(el) => {
              buttons.current[i] = el;
            }}
            role="radio"
            aria-checked={on}
            tabIndex={on ? 0 : -1}
            size="compact-sm"
            variant={on ? "default" : "subtle"}
            color={on ? undefined : "gray"}
            leftSection={m.value === "note" ? <LockIcon size={12} /> : undefined}
            onClick={() => onChange(m.value)}
            onKeyDown={(e) => onKeyDown(e, i)}
            style={on && m.value === "note" ? { background: "var(--mantine-color-yellow-1)" } : undefined}
          >
            {m.label}
          </Button>
        );
      })}
    </Group>
  );
}

export function ReplyBox({
  conversationId,
  channelType,
  team,
  contact,
  agentName,
  onSent,
}: {
  conversationId: string;
  channelType: Conversation["channelType"];
  /** The teammates a note can mention (everyone but the person writing). */
  team: Team["members"];
  /** Who the conversation is with: a canned reply's placeholders are filled from the contact. */
  contact: Conversation["contact"];
  /** The signed-in person's name: a canned reply's {{agentName}}. */
  agentName: string | null;
  onSent: () => void;
}) {
  const client = useQueryClient();
  const [mode, setMode] = useState<ComposeMode>("reply");
  // One draft per mode: switching never turns a note into a reply or back.
  const [drafts, setDrafts] = useState<Record<ComposeMode, string>>({ reply: "", note: "" });
  const body = drafts[mode];
  const setBody = (text: string) => setDrafts((d) => ({ ...d, [mode]: text }));
  const field = useRef<HTMLTextAreaElement>(null);
  const lastTyping = useRef(0);
  // On the website chat the visitor sees "typing…" while a person types here (at most one call per 2 s;
  // a failed call only means no "typing…", so it is not reported).
  const typing = () => {
    if (channelType !== "web" || Date.now() - lastTyping.current < TYPING_EVERY_MS) return;
    lastTyping.current = Date.now();
    sendTyping(conversationId);
  };
  const send = useSendMessage(conversationId);
  // One image or PDF with the reply (never with a note).
  const [file, setFile] = useState<File | null>(null);
  const addNote = useAddNote(conversationId);

  // The "@…" being typed in a note, and the teammates it could be.
  const [mention, setMention] = useState<{ start: number; query: string } | null>(null);
  const combobox = useCombobox({ onDropdownClose: () => combobox.resetSelectedOption() });
  const candidates = mode === "note" && mention ? matchTeammates(team, mention.query).slice(0, 8) : [];
  // The "/…" typed at the start of a reply, and the canned replies it matches (read once it is typed).
  const [shortcut, setShortcut] = useState<string | null>(null);
  const canned = useCannedReplies({ enabled: shortcut !== null });
  const cannedMatches =
    mode === "reply" && shortcut !== null ? matchCannedReplies(canned.data ?? [], shortcut).slice(0, 8) : [];
  const candidateKey = [...candidates, ...cannedMatches].map((m) => m.id).join(",");
  // biome-ignore lint/correctness/useExhaustiveDependencies: the store is stable; the list is the key
  useEffect(() => {
    if (!candidateKey) {
      combobox.closeDropdown();
      return;
    }
    combobox.openDropdown();
    // The first teammate is picked by Enter; the options are in the page once the dropdown rendered.
    const later = window.setTimeout(() => combobox.selectFirstOption(), 0);
    return () => window.clearTimeout(later);
  }, [candidateKey]);
  const readMention = (el: HTMLTextAreaElement) => {
    const caret = el.selectionStart ?? el.value.length;
    setMention(mode === "note" ? typedMention(el.value, caret) : null);
    setShortcut(mode === "reply" ? typedShortcut(el.value, caret) : null);
  };
  const putCaret = (caret: number) =>
    requestAnimationFrame(() => {
      field.current?.focus();
      field.current?.setSelectionRange(caret, caret);
    });
  /** The contact's own names (the conversation only carries the full name); read once, then cached. */
  const contactNames = async (): Promise<{ firstName: string | null; lastName: string | null }> => {
    try {
      const detail = await client.fetchQuery({
        queryKey: contactKeys.detail(contact.id),
        queryFn: () => api<ContactDetail>("GET", `/contacts/${contact.id}`),
        staleTime: 30_000,
      });
      return { firstName: detail.contact.firstName, lastName: detail.contact.lastName };
    } catch {
      // Without the contact's page, the first word of the name stands for the first name.
      const [first = null, ...rest] = contact.name?.split(/\s+/) ?? [];
      return { firstName: first, lastName: rest.join(" ") || null };
    }
  };
  /** Replaces the typed "/…" with the reply, its placeholders filled. */
  const insertCanned = async (reply: CannedReply) => {
    setShortcut(null);
    const names = await contactNames();
    const text = fillPlaceholders(reply.body, {
      ...names,
      name: contact.name,
      phone: contact.phone,
      email: contact.email,
      agentName,
    });
    setDrafts((d) => {
      const typed = typedShortcut(d.reply, field.current?.selectionStart ?? d.reply.length);
      const end = typed === null ? 0 : typed.length + 1;
      return { ...d, reply: `${text}${d.reply.slice(end)}` };
    });
    putCaret(text.length);
  };
  /** The emoji goes where the caret was (or over the selection) in the box. */
  const insertEmoji = (emoji: string) => {
    const el = field.current;
    const start = el?.selectionStart ?? body.length;
    const end = el?.selectionEnd ?? body.length;
    setBody(`${body.slice(0, start)}${emoji}${body.slice(end)}`);
    putCaret(start + emoji.length);
  };
  const pick = (id: string) => {
    const reply = cannedMatches.find((r) => r.id === id);
    if (reply) {
      void insertCanned(reply);
      return;
    }
    const person = team.find((m) => m.id === id);
    if (!person || !mention) return;
    const end = mention.start + 1 + mention.query.length;
    const inserted = `@${mentionLabel(person)} `;
    setBody(`${body.slice(0, mention.start)}${inserted}${body.slice(end)}`);
    setMention(null);
    const caret = mention.start + inserted.length;
    putCaret(caret);
  };

  const pending = mode === "note" ? addNote.isPending : send.isPending;
  const failure = mode === "note" ? addNote.error : send.error;
  const submit = () => {
    const text = body.trim();
    const attached = mode === "reply" ? file : null;
    if ((!text && !attached) || pending) return;
    if (mode === "note") {
      addNote.mutate(text, { onSuccess: () => setDrafts((d) => ({ ...d, note: "" })) });
    } else {
      send.mutate(attached ? { body: text, file: attached } : text, {
        onSuccess: () => {
          setDrafts((d) => ({ ...d, reply: "" }));
          setFile(null);
          onSent();
        },
      });
    }
  };
  const note = mode === "note";
  return (
    <Box
      component="form"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
      p={note ? "xs" : 0}
      bg={note ? "var(--mantine-color-yellow-0)" : undefined}
      style={{
        borderRadius: "var(--mantine-radius-md)",
        border: note ? "1px solid var(--mantine-color-yellow-5)" : "1px solid transparent",
      }}
      data-mode={mode}
    >
      <Stack gap={6}>
        <ModeSwitch
          mode={mode}
          onChange={(m) => {
            setMode(m);
            setMention(null);
            setShortcut(null);
            // Whoever joined the team since it was read can be mentioned too.
            if (m === "note") void client.invalidateQueries({ queryKey: teamKeys.all });
          }}
        />
        <Combobox store={combobox} onOptionSubmit={pick} position="top-start" width={280}>
          <Combobox.Target withKeyboardNavigation={combobox.dropdownOpened}>
            <Textarea
              ref={field}
              label={note ? "Private note" : "Reply"}
              description={
                note
                  ? "Only your team sees it, never the customer. @ mentions a teammate, who is notified. Ctrl+Enter adds it."
                  : `Sent to the customer ${whereReplies(channelType)} as you; the bot pauses on this conversation. Ctrl+Enter sends.`
              }
              placeholder={note ? "Write a private note… @ mentions a teammate" : undefined}
              autosize
              minRows={2}
              maxRows={8}
              value={body}
              onChange={(e) => {
                setBody(e.currentTarget.value);
                readMention(e.currentTarget);
                if (!note && e.currentTarget.value.trim()) typing();
              }}
              onSelect={(e) => readMention(e.currentTarget)}
              onBlur={() => combobox.closeDropdown()}
              onKeyDown={(e) => {
                if (e.key === "Escape" && combobox.dropdownOpened) {
                  setMention(null);
                  setShortcut(null);
                }
                if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
                  e.preventDefault();
                  submit();
                }
              }}
              styles={
                note
                  ? {
                      input: {
                        background: "var(--mantine-color-yellow-1)",
                        borderColor: "var(--mantine-color-yellow-6)",
                      },
                    }
                  : undefined
              }
              error={failure ? errorMessage(failure) : undefined}
            />
          </Combobox.Target>
          <Combobox.Dropdown>
            {cannedMatches.length > 0 && (
              <Combobox.Options aria-label="Canned replies">
                {cannedMatches.map((r) => (
                  <Combobox.Option value={r.id} key={r.id}>
                    <Text size="sm" fw={500}>
                      /{r.shortcut} · {r.title}
                    </Text>
                    <Text size="xs" c="inherit" lineClamp={1}>
                      {r.body}
                    </Text>
                  </Combobox.Option>
                ))}
              </Combobox.Options>
            )}
            <Combobox.Options aria-label="Teammates to mention">
              {candidates.map((m) => (
                <Combobox.Option value={m.id} key={m.id}>
                  <Text size="sm" fw={500}>
                    {mentionLabel(m)}
                  </Text>
                  {m.name?.trim() && (
                    // The option's own colour: readable on the highlighted (selected) option too.
                    <Text size="xs" c="inherit">
                      {m.email}
                    </Text>
                  )}
                </Combobox.Option>
              ))}
            </Combobox.Options>
          </Combobox.Dropdown>
        </Combobox>
        {!note && <AttachmentPicker file={file} onChange={setFile} disabled={pending} />}
        <Group justify="space-between">
          <EmojiButton onPick={insertEmoji} />
          <Button
            type="submit"
            loading={pending}
            disabled={!body.trim() && !(file && !note)}
            leftSection={note ? <LockIcon size={14} /> : undefined}
          >
            {note ? "Add note" : "Send"}
          </Button>
        </Group>
      </Stack>
    </Box>
  );
}
