import {
  Alert,
  Badge,
  Box,
  Button,
  Combobox,
  Group,
  Paper,
  ScrollArea,
  Select,
  Stack,
  Text,
  Textarea,
  Title,
  useCombobox,
} from "@mantine/core";
import { useQueryClient } from "@tanstack/react-query";
import { type KeyboardEvent, useEffect, useRef, useState } from "react";
import { ErrorState, LoadingState } from "../../components/States.tsx";
import { ApiError, errorMessage } from "../../lib/api.ts";
import { channelKindLabel } from "../../lib/channels.ts";
import { fullTime } from "../../lib/format.ts";
import {
  sendTyping,
  useConversation,
  useRefreshConversation,
  useSendMessage,
  useUpdateConversation,
} from "../../lib/queries/conversations.ts";
import { type Note, useAddNote, useNotes } from "../../lib/queries/notes.ts";
import { teamKeys, useTeam } from "../../lib/queries/team.ts";
import {
  type Conversation,
  contactLabel,
  type FunctionCall,
  type Message,
  type Session,
  type Team,
} from "../../lib/types.ts";
import { FunctionCallItem } from "./FunctionCallItem.tsx";
import { MessageItem } from "./MessageItem.tsx";
import { matchTeammates, mentionLabel, typedMention } from "./mentions.ts";
import { LockIcon, NoteItem } from "./NoteItem.tsx";
import { ALERT_REASONS } from "./reasons.ts";
import { lastLearnable, SaveKnowledge } from "./SaveKnowledge.tsx";
import { SummaryPanel } from "./SummaryPanel.tsx";

export function ConversationView({ conversationId, session }: { conversationId: string; session: Session }) {
  const detail = useConversation(conversationId);
  const team = useTeam({ staleTime: 60_000 });
  // Under the conversation's key: the live stream and a reply refresh them with it.
  const notes = useNotes(conversationId);
  const refreshConversation = useRefreshConversation();
  const refresh = () => refreshConversation(conversationId);
  const patch = useUpdateConversation(conversationId);

  if (detail.isPending) return <LoadingState label="Loading the conversation" />;
  if (detail.isError) {
    if (detail.error instanceof ApiError && detail.error.status === 404) {
      return <ErrorState error={new Error("This conversation does not exist or was removed.")} />;
    }
    return <ErrorState error={detail.error} onRetry={() => void detail.refetch()} />;
  }
  const { conversation: c, messages, functionCalls = [] } = detail.data;
  // What the bot tells the person taking over: while the conversation needs one, or after the bot
  // handed over and no person has written since.
  const personWroteAt = messages.findLastIndex((m) => m.sender === "human");
  const handedOver =
    c.humanAlert || messages.slice(personWroteAt + 1).some((m) => m.botOutcome === "handover");
  const members = team.data?.members ?? [];
  // Teaching the bot changes what it tells customers: owners and admins, as for editing a campaign.
  const learnable = c.campaignId && session.user.role !== "agent" ? lastLearnable(messages) : null;

  return (
    <Paper withBorder radius="md" p="sm" component="section" aria-labelledby="conversation-title">
      <Stack gap="xs">
        <Group justify="space-between" align="flex-start" wrap="wrap" gap="xs">
          <div>
            <Title order={2} size="h3" id="conversation-title">
              {contactLabel(c.contact)}
            </Title>
            <Text size="sm" c="dimmed">
              {[c.contact.fromId, c.contact.phone, c.contact.email, c.channel && `via ${c.channel}`]
                .filter(Boolean)
                .join(" · ")}
            </Text>
          </div>
          <Group gap={6}>
            <Badge color={c.status === "open" ? "blue" : "green"} variant="light">
              {c.status === "open" ? "Open" : "Resolved"}
            </Badge>
            <Badge color={c.botPaused ? "gray" : "teal"} variant="light">
              {c.botPaused ? "Bot paused" : "Bot on"}
            </Badge>
            {c.contact.smsOptedOutAt && (
              <Badge color="orange.9" variant="light" title={`Since ${fullTime(c.contact.smsOptedOutAt)}`}>
                Opted out of SMS
              </Badge>
            )}
          </Group>
        </Group>
        {c.humanAlert && (
          <Alert color="red" title="Needs a human" role="status">
            <Group justify="space-between" wrap="wrap" gap="xs">
              <Text size="sm">
                {(c.humanAlertReason && ALERT_REASONS[c.humanAlertReason]) ??
                  c.humanAlertReason ??
                  "The bot asked for a person to take over."}
              </Text>
              <Button
                size="xs"
                variant="light"
                color="red"
                onClick={() => patch.mutate({ humanAlert: false })}
              >
                Clear alert
              </Button>
            </Group>
          </Alert>
        )}
        {handedOver && <SummaryPanel conversationId={conversationId} />}
        <Group gap="xs" wrap="wrap" align="flex-end">
          <Select
            label="Assignee"
            placeholder="Unassigned"
            data={members.map((m) => ({
              value: m.id,
              label: m.id === session.user.id ? `${m.name ?? m.email} (you)` : (m.name ?? m.email),
            }))}
            value={c.assignee?.id ?? null}
            onChange={(v) => patch.mutate({ assigneeId: v })}
            clearable
            clearButtonProps={{ "aria-label": "Unassign" }}
            w={220}
            size="xs"
          />
          <Button
            size="xs"
            variant="default"
            onClick={() => patch.mutate({ botPaused: !c.botPaused })}
            loading={patch.isPending && patch.variables?.botPaused !== undefined}
          >
            {c.botPaused ? "Resume bot" : "Pause bot"}
          </Button>
          <Button
            size="xs"
            variant="default"
            onClick={() => patch.mutate({ status: c.status === "open" ? "resolved" : "open" })}
          >
            {c.status === "open" ? "Resolve" : "Reopen"}
          </Button>
        </Group>
        <Thread
          messages={messages}
          functionCalls={functionCalls}
          notes={notes.data ?? []}
          contactName={contactLabel(c.contact)}
          contactSeenAt={c.contactSeenAt}
          onResent={refresh}
        />
        {notes.isError && (
          <Text size="sm" c="red.9" role="alert">
            The private notes could not be loaded: {errorMessage(notes.error)}
          </Text>
        )}
        {learnable && c.campaignId && <SaveKnowledge campaignId={c.campaignId} learnable={learnable} />}
        <ReplyBox
          conversationId={conversationId}
          channelType={c.channelType}
          team={members.filter((m) => m.id !== session.user.id)}
          onSent={refresh}
        />
      </Stack>
    </Paper>
  );
}

type ThreadItem =
  | { kind: "message"; message: Message }
  | { kind: "call"; call: FunctionCall }
  | { kind: "note"; note: Note };

function itemId(item: ThreadItem): string {
  return item.kind === "message" ? item.message.id : item.kind === "call" ? item.call.id : item.note.id;
}

function itemTime(item: ThreadItem): number {
  if (item.kind === "message") return Date.parse(item.message.createdAt);
  return Date.parse(item.kind === "call" ? item.call.createdAt : item.note.createdAt);
}

/** The team's notes in the timeline by time; one written in the same millisecond as a message goes after it. */
function withNotes(items: ThreadItem[], notes: Note[]): ThreadItem[] {
  if (notes.length === 0) return items;
  const out: ThreadItem[] = [];
  let j = 0;
  for (const item of items) {
    const at = itemTime(item);
    for (; j < notes.length && Date.parse((notes[j] as Note).createdAt) < at; j++) {
      out.push({ kind: "note", note: notes[j] as Note });
    }
    out.push(item);
  }
  for (; j < notes.length; j++) out.push({ kind: "note", note: notes[j] as Note });
  return out;
}

/**
 * Messages and the bot's function calls in one timeline, by time. A call made in the same millisecond
 * as a message goes after the customer's message and before the bot's reply.
 */
function timeline(messages: Message[], calls: FunctionCall[]): ThreadItem[] {
  const items: ThreadItem[] = [];
  let j = 0;
  for (const m of messages) {
    const at = Date.parse(m.createdAt);
    for (; j < calls.length; j++) {
      const call = calls[j] as FunctionCall;
      const callAt = Date.parse(call.createdAt);
      if (callAt < at || (callAt === at && m.direction === "outbound")) {
        items.push({ kind: "call", call });
      } else break;
    }
    items.push({ kind: "message", message: m });
  }
  for (; j < calls.length; j++) items.push({ kind: "call", call: calls[j] as FunctionCall });
  return items;
}

function Thread({
  messages,
  functionCalls,
  notes,
  contactName,
  contactSeenAt,
  onResent,
}: {
  messages: Message[];
  /** The bot's calls of the campaign's functions, oldest first: shown to the team only. */
  functionCalls: FunctionCall[];
  /** The team's private notes, oldest first: shown to the team only. */
  notes: Note[];
  contactName: string;
  /** Where the channel reports it (the website chat): replies sent before it were seen. */
  contactSeenAt: string | null;
  onResent: () => void;
}) {
  const seenUntil = contactSeenAt ? Date.parse(contactSeenAt) : null;
  const end = useRef<HTMLDivElement>(null);
  const items = withNotes(timeline(messages, functionCalls), notes);
  const lastItem = items.at(-1);
  const last = lastItem && itemId(lastItem);
  useEffect(() => {
    if (last) end.current?.scrollIntoView({ block: "end" });
  }, [last]);
  return (
    <ScrollArea.Autosize mah="calc(100vh - 400px)" type="auto" offsetScrollbars>
      <Stack gap="sm" py="xs" component="ol" m={0} pl={0} style={{ listStyle: "none" }} aria-label="Messages">
        {messages.length === 0 && (
          <Text c="dimmed" size="sm" ta="center">
            No messages yet.
          </Text>
        )}
        {items.map((item) =>
          item.kind === "call" ? (
            <li key={item.call.id}>
              <FunctionCallItem call={item.call} />
            </li>
          ) : item.kind === "note" ? (
            <li key={item.note.id}>
              <NoteItem note={item.note} />
            </li>
          ) : (
            <li key={item.message.id}>
              <MessageItem
                message={item.message}
                contactName={contactName}
                seen={
                  seenUntil !== null &&
                  item.message.status === "sent" &&
                  Date.parse(item.message.createdAt) <= seenUntil
                }
                onResent={onResent}
              />
            </li>
          ),
        )}
      </Stack>
      <div ref={end} />
    </ScrollArea.Autosize>
  );
}

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

function ReplyBox({
  conversationId,
  channelType,
  team,
  onSent,
}: {
  conversationId: string;
  channelType: Conversation["channelType"];
  /** The teammates a note can mention (everyone but the person writing). */
  team: Team["members"];
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
  const addNote = useAddNote(conversationId);

  // The "@…" being typed in a note, and the teammates it could be.
  const [mention, setMention] = useState<{ start: number; query: string } | null>(null);
  const combobox = useCombobox({ onDropdownClose: () => combobox.resetSelectedOption() });
  const candidates = mode === "note" && mention ? matchTeammates(team, mention.query).slice(0, 8) : [];
  const candidateKey = candidates.map((m) => m.id).join(",");
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
    setMention(mode === "note" ? typedMention(el.value, el.selectionStart ?? el.value.length) : null);
  };
  const pick = (userId: string) => {
    const person = team.find((m) => m.id === userId);
    if (!person || !mention) return;
    const end = mention.start + 1 + mention.query.length;
    const inserted = `@${mentionLabel(person)} `;
    setBody(`${body.slice(0, mention.start)}${inserted}${body.slice(end)}`);
    setMention(null);
    const caret = mention.start + inserted.length;
    requestAnimationFrame(() => {
      field.current?.focus();
      field.current?.setSelectionRange(caret, caret);
    });
  };

  const pending = mode === "note" ? addNote.isPending : send.isPending;
  const failure = mode === "note" ? addNote.error : send.error;
  const submit = () => {
    const text = body.trim();
    if (!text || pending) return;
    if (mode === "note") {
      addNote.mutate(text, { onSuccess: () => setDrafts((d) => ({ ...d, note: "" })) });
    } else {
      send.mutate(text, {
        onSuccess: () => {
          setDrafts((d) => ({ ...d, reply: "" }));
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
                if (note) readMention(e.currentTarget);
                else if (e.currentTarget.value.trim()) typing();
              }}
              onSelect={(e) => readMention(e.currentTarget)}
              onBlur={() => combobox.closeDropdown()}
              onKeyDown={(e) => {
                if (e.key === "Escape" && combobox.dropdownOpened) setMention(null);
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
        <Group justify="flex-end">
          <Button
            type="submit"
            loading={pending}
            disabled={!body.trim()}
            leftSection={note ? <LockIcon size={14} /> : undefined}
          >
            {note ? "Add note" : "Send"}
          </Button>
        </Group>
      </Stack>
    </Box>
  );
}
