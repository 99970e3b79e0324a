import {
  Alert,
  Badge,
  Button,
  Group,
  Paper,
  ScrollArea,
  Select,
  Stack,
  Text,
  Textarea,
  Title,
} from "@mantine/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { ErrorState, LoadingState } from "../../components/States.tsx";
import { ApiError, api, errorMessage } from "../../lib/api.ts";
import { channelKindLabel } from "../../lib/channels.ts";
import { fullTime } from "../../lib/format.ts";
import { notify } from "../../lib/notify.ts";
import {
  type Conversation,
  type ConversationDetail,
  contactLabel,
  type FunctionCall,
  type Message,
  type Session,
  type Team,
} from "../../lib/types.ts";
import { FunctionCallItem } from "./FunctionCallItem.tsx";
import { MessageItem } from "./MessageItem.tsx";
import { ALERT_REASONS } from "./reasons.ts";
import { lastLearnable, SaveKnowledge } from "./SaveKnowledge.tsx";
import { SummaryPanel } from "./SummaryPanel.tsx";

type ConversationPatch = Partial<{
  status: "open" | "resolved";
  assigneeId: string | null;
  botPaused: boolean;
  humanAlert: false;
}>;

export function ConversationView({ conversationId, session }: { conversationId: string; session: Session }) {
  const client = useQueryClient();
  const detail = useQuery({
    queryKey: ["conversation", conversationId],
    queryFn: async () => {
      const d = await api<ConversationDetail>("GET", `/conversations/${conversationId}`);
      // Opening it marks it read: the list's unread badge goes.
      void client.invalidateQueries({ queryKey: ["conversations"] });
      return d;
    },
  });
  const team = useQuery({ queryKey: ["team"], queryFn: () => api<Team>("GET", "/team"), staleTime: 60_000 });
  const refresh = () => {
    void client.invalidateQueries({ queryKey: ["conversation", conversationId] });
    void client.invalidateQueries({ queryKey: ["conversations"] });
  };
  const patch = useMutation({
    mutationFn: (body: ConversationPatch) => api("PATCH", `/conversations/${conversationId}`, body),
    onSuccess: refresh,
    onError: (err) => notify(errorMessage(err), "error"),
  });

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
          contactName={contactLabel(c.contact)}
          contactSeenAt={c.contactSeenAt}
          onResent={refresh}
        />
        {learnable && c.campaignId && <SaveKnowledge campaignId={c.campaignId} learnable={learnable} />}
        <ReplyBox conversationId={conversationId} channelType={c.channelType} onSent={refresh} />
      </Stack>
    </Paper>
  );
}

type ThreadItem = { kind: "message"; message: Message } | { kind: "call"; call: FunctionCall };

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
  contactName,
  contactSeenAt,
  onResent,
}: {
  messages: Message[];
  /** The bot's calls of the campaign's functions, oldest first: shown to the team only. */
  functionCalls: FunctionCall[];
  contactName: string;
  /** Where the channel reports it (the website chat): replies sent before it were seen. */
  contactSeenAt: string | null;
  onResent: () => void;
}) {
  const seenUntil = contactSeenAt ? Date.parse(contactSeenAt) : null;
  const end = useRef<HTMLDivElement>(null);
  const items = timeline(messages, functionCalls);
  const lastItem = items.at(-1);
  const last = lastItem && (lastItem.kind === "message" ? lastItem.message.id : lastItem.call.id);
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

function ReplyBox({
  conversationId,
  channelType,
  onSent,
}: {
  conversationId: string;
  channelType: Conversation["channelType"];
  onSent: () => void;
}) {
  const [body, setBody] = useState("");
  const lastTyping = useRef(0);
  // On the website chat the visitor sees "typing…" while a person types here (at most one call per 2 s;
  // a failed call only means no "typing…", so it is not reported).
  const typing = () => {
    if (channelType !== "web" || Date.now() - lastTyping.current < TYPING_EVERY_MS) return;
    lastTyping.current = Date.now();
    api("POST", `/conversations/${conversationId}/typing`).catch(() => {});
  };
  const send = useMutation({
    mutationFn: (text: string) =>
      api<Message>("POST", `/conversations/${conversationId}/messages`, { body: text }),
    onSuccess: () => {
      setBody("");
      onSent();
    },
  });
  const submit = () => {
    const text = body.trim();
    if (!text || send.isPending) return;
    send.mutate(text);
  };
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <Stack gap={6}>
        <Textarea
          label="Reply"
          description={`Sent to the customer ${whereReplies(channelType)} as you; the bot pauses on this conversation. Ctrl+Enter sends.`}
          autosize
          minRows={2}
          maxRows={8}
          value={body}
          onChange={(e) => {
            setBody(e.currentTarget.value);
            if (e.currentTarget.value.trim()) typing();
          }}
          onKeyDown={(e) => {
            if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
              e.preventDefault();
              submit();
            }
          }}
          error={send.isError ? errorMessage(send.error) : undefined}
        />
        <Group justify="flex-end">
          <Button type="submit" loading={send.isPending} disabled={!body.trim()}>
            Send
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
