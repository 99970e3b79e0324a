import { Alert, Badge, Button, Group, Paper, ScrollArea, Select, Stack, Text, Title } from "@mantine/core";
import { useEffect, useRef } from "react";
import { useSearchParams } from "react-router";
import { PlainList } from "../../components/PlainList.tsx";
import { ErrorState, LoadingState } from "../../components/States.tsx";
import { ApiError, errorMessage } from "../../lib/api.ts";
import type { ConversationEvent, FunctionCall, Message, Session } from "../../lib/api-types.ts";
import { contactLabel, fullTime } from "../../lib/format.ts";
import {
  useConversation,
  useRefreshConversation,
  useUpdateConversation,
} from "../../lib/queries/conversations.ts";
import { type Note, useNotes } from "../../lib/queries/notes.ts";
import { useTeam } from "../../lib/queries/team.ts";
import { useDocumentTitle } from "../../lib/useDocumentTitle.ts";
import { EventLine } from "./EventLine.tsx";
import { FunctionCallItem } from "./FunctionCallItem.tsx";
import { MessageItem } from "./MessageItem.tsx";
import { mergeByTime } from "./merge-by-time.ts";
import { NoteItem } from "./NoteItem.tsx";
import { ConversationPresence, ReplyCollisionWarning } from "./Presence.tsx";
import { ReplyBox } from "./ReplyBox.tsx";
import { ALERT_REASONS } from "./reasons.ts";
import { lastLearnable, SaveKnowledge } from "./SaveKnowledge.tsx";
import { SummaryPanel } from "./SummaryPanel.tsx";

export function ConversationView({ conversationId, session }: { conversationId: string; session: Session }) {
  const detail = useConversation(conversationId);
  useDocumentTitle(detail.data ? contactLabel(detail.data.conversation.contact) : null);
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
        <ConversationPresence conversationId={conversationId} meId={session.user.id} />
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
          events={detail.data.events ?? []}
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
        <ReplyCollisionWarning conversationId={conversationId} meId={session.user.id} />
        <ReplyBox
          conversationId={conversationId}
          channelType={c.channelType}
          team={members.filter((m) => m.id !== session.user.id)}
          contact={c.contact}
          agentName={session.user.name}
          onSent={refresh}
        />
      </Stack>
    </Paper>
  );
}

type ThreadItem =
  | { kind: "message"; message: Message }
  | { kind: "call"; call: FunctionCall }
  | { kind: "note"; note: Note }
  | { kind: "event"; event: ConversationEvent };

function itemId(item: ThreadItem): string {
  if (item.kind === "event") return item.event.id;
  return item.kind === "message" ? item.message.id : item.kind === "call" ? item.call.id : item.note.id;
}

function itemTime(item: ThreadItem): number {
  if (item.kind === "event") return Date.parse(item.event.createdAt);
  if (item.kind === "message") return Date.parse(item.message.createdAt);
  return Date.parse(item.kind === "call" ? item.call.createdAt : item.note.createdAt);
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
  events = [],
  contactName,
  contactSeenAt,
  onResent,
}: {
  messages: Message[];
  /** The bot's calls of the campaign's functions, oldest first: shown to the team only. */
  functionCalls: FunctionCall[];
  /** The team's private notes, oldest first: shown to the team only. */
  notes: Note[];
  /** Hand-backs, oldest first: small lines between the messages. */
  events?: ConversationEvent[];
  contactName: string;
  /** Where the channel reports it (the website chat): replies sent before it were seen. */
  contactSeenAt: string | null;
  onResent: () => void;
}) {
  const seenUntil = contactSeenAt ? Date.parse(contactSeenAt) : null;
  const end = useRef<HTMLDivElement>(null);
  // Notes and events slot in after what was written in the same millisecond.
  const withNotes = mergeByTime(timeline(messages, functionCalls), notes, itemTime, (note) => ({
    kind: "note" as const,
    note,
  }));
  const items = mergeByTime(withNotes, events, itemTime, (event) => ({ kind: "event" as const, event }));
  const lastItem = items.at(-1);
  const last = lastItem && itemId(lastItem);
  useEffect(() => {
    if (last) end.current?.scrollIntoView({ block: "end" });
  }, [last]);
  // Opened from a search hit (?message=): that message is scrolled to and highlighted.
  const target = useSearchParams()[0].get("message");
  const found = target !== null && messages.some((m) => m.id === target);
  useEffect(() => {
    if (found && last) {
      document
        .querySelector(`[data-message-id="${CSS.escape(target)}"]`)
        ?.scrollIntoView({ block: "center" });
    }
  }, [found, target, last]);
  return (
    <ScrollArea.Autosize mah="calc(100vh - 400px)" type="auto" offsetScrollbars>
      <PlainList ordered gap="sm" py="xs" aria-label="Messages">
        {messages.length === 0 && (
          <Text c="dimmed" size="sm" ta="center">
            No messages yet.
          </Text>
        )}
        {items.map((item) =>
          item.kind === "event" ? (
            <li key={item.event.id}>
              <EventLine event={item.event} />
            </li>
          ) : item.kind === "call" ? (
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
                highlighted={item.message.id === target}
              />
            </li>
          ),
        )}
      </PlainList>
      <div ref={end} />
    </ScrollArea.Autosize>
  );
}
