import {
  Badge,
  Button,
  Checkbox,
  Group,
  Paper,
  ScrollArea,
  Select,
  Stack,
  Text,
  TextInput,
  UnstyledButton,
} from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { Link, useSearchParams } from "react-router";
import { ChannelIcon } from "../../components/ChannelIcon.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../components/States.tsx";
import { CHANNEL_TYPE_LABELS } from "../../lib/channels.ts";
import { shortTime } from "../../lib/format.ts";
import { useChannels } from "../../lib/queries/channels.ts";
import { useConversations } from "../../lib/queries/conversations.ts";
import { type Conversation, contactLabel, type Session } from "../../lib/types.ts";

const FILTERS = [
  "status",
  "assignee",
  "humanAlert",
  "channel",
  "channelId",
  "campaignId",
  "label",
  "q",
] as const;

function useFilters() {
  const [params, setParams] = useSearchParams();
  const value = (name: (typeof FILTERS)[number]) => params.get(name) ?? "";
  const set = (name: (typeof FILTERS)[number], v: string) => {
    const next = new URLSearchParams(params);
    if (v) next.set(name, v);
    else next.delete(name);
    setParams(next, { replace: true });
  };
  const replace = (next: URLSearchParams) => setParams(next, { replace: true });
  return { value, set, replace, search: params.toString() };
}

export function ConversationList({ session, selectedId }: { session: Session; selectedId: string | null }) {
  const filters = useFilters();
  const status = filters.value("status") || "open";
  const [q] = useDebouncedValue(filters.value("q"), 250);
  const query = new URLSearchParams();
  if (status !== "all") query.set("status", status);
  for (const name of ["assignee", "humanAlert", "channel", "channelId", "campaignId", "label"] as const) {
    const v = filters.value(name);
    if (v) query.set(name, v);
  }
  if (q.trim()) query.set("q", q.trim());
  const list = useConversations(query);
  const conversations = list.data?.pages.flatMap((p) => p.data) ?? [];
  const channels = [
    ...new Set([filters.value("channel"), ...conversations.map((c) => c.channel ?? "")]),
  ].filter(Boolean);
  // One Channel filter for both: a built-in channel (or the custom channel as a whole) is ?channelId=,
  // a name the custom channel's integration gave (e.g. "sms") is ?channel= as before.
  const builtIn = useChannels().data?.data ?? [];
  const channelName = (id: string | null) => builtIn.find((ch) => ch.id === id)?.name ?? null;
  const channelOptions = [
    {
      group: "Channels",
      items: [
        { value: "id:custom", label: CHANNEL_TYPE_LABELS.custom },
        ...builtIn.map((ch) => ({ value: `id:${ch.id}`, label: ch.name })),
      ],
    },
    ...(channels.length > 0
      ? [{ group: "Custom channel names", items: channels.map((n) => ({ value: `name:${n}`, label: n })) }]
      : []),
  ];
  const channelValue = filters.value("channelId")
    ? `id:${filters.value("channelId")}`
    : filters.value("channel")
      ? `name:${filters.value("channel")}`
      : null;
  const setChannel = (v: string | null) => {
    const next = new URLSearchParams(filters.search);
    next.delete("channelId");
    next.delete("channel");
    if (v?.startsWith("id:")) next.set("channelId", v.slice(3));
    else if (v?.startsWith("name:")) next.set("channel", v.slice(5));
    filters.replace(next);
  };
  const campaigns = [
    ...new Set([filters.value("campaignId"), ...conversations.map((c) => c.campaignId ?? "")]),
  ].filter(Boolean);
  const filtered = FILTERS.some((f) => f !== "status" && filters.value(f)) || status !== "open";

  return (
    <Paper withBorder radius="md" p="sm" component="section" aria-label="Conversations">
      <Stack gap="xs">
        <TextInput
          label="Search conversations"
          placeholder="Name, phone, email or message text"
          type="search"
          value={filters.value("q")}
          onChange={(e) => filters.set("q", e.currentTarget.value)}
        />
        <Group gap="xs" grow>
          <Select
            label="Status"
            data={[
              { value: "open", label: "Open" },
              { value: "resolved", label: "Resolved" },
              { value: "all", label: "All" },
            ]}
            value={status}
            onChange={(v) => filters.set("status", v === "open" ? "" : (v ?? ""))}
            allowDeselect={false}
          />
          <Select
            label="Assigned"
            data={[
              { value: "", label: "Anyone" },
              { value: "me", label: "To me" },
              { value: "unassigned", label: "Unassigned" },
            ]}
            value={filters.value("assignee")}
            onChange={(v) => filters.set("assignee", v ?? "")}
            allowDeselect={false}
          />
        </Group>
        <Group gap="xs" grow>
          <Select
            label="Channel"
            placeholder="All channels"
            data={channelOptions}
            value={channelValue}
            onChange={setChannel}
            clearable
            clearButtonProps={{ "aria-label": "Clear this filter" }}
          />
          <Select
            label="Campaign"
            placeholder="All campaigns"
            data={campaigns}
            value={filters.value("campaignId") || null}
            onChange={(v) => filters.set("campaignId", v ?? "")}
            clearable
            clearButtonProps={{ "aria-label": "Clear this filter" }}
          />
        </Group>
        <TextInput
          label="Contact label"
          placeholder="For example vip"
          value={filters.value("label")}
          onChange={(e) => filters.set("label", e.currentTarget.value)}
        />
        <Checkbox
          label="Needs a human"
          checked={filters.value("humanAlert") === "true"}
          onChange={(e) => filters.set("humanAlert", e.currentTarget.checked ? "true" : "")}
        />
      </Stack>
      <ScrollArea.Autosize mah="calc(100vh - 360px)" mt="sm" type="auto" scrollbars="y">
        {list.isPending && <LoadingState label="Loading conversations" />}
        {list.isError && <ErrorState error={list.error} onRetry={() => void list.refetch()} />}
        {list.data && conversations.length === 0 && (
          <EmptyState title={filtered ? "No conversation matches" : "No conversations yet"}>
            {filtered
              ? "Try other filters or another search."
              : `When your system posts a message to ${window.location.origin}/v1/incoming_custom_channel_message, the conversation appears here at once.`}
          </EmptyState>
        )}
        <Stack
          gap={4}
          component="ul"
          p={0}
          m={0}
          style={{ listStyle: "none" }}
          aria-label="Conversation list"
        >
          {conversations.map((c) => (
            <li key={c.id}>
              <ConversationRow
                conversation={c}
                selected={c.id === selectedId}
                search={filters.search}
                meId={session.user.id}
                channelName={channelName(c.channelId)}
              />
            </li>
          ))}
        </Stack>
        {list.hasNextPage && (
          <Button
            variant="subtle"
            fullWidth
            mt="xs"
            loading={list.isFetchingNextPage}
            onClick={() => void list.fetchNextPage()}
          >
            Load more
          </Button>
        )}
      </ScrollArea.Autosize>
    </Paper>
  );
}

function ConversationRow({
  conversation: c,
  selected,
  search,
  meId,
  channelName,
}: {
  conversation: Conversation;
  selected: boolean;
  search: string;
  meId: string;
  /** The built-in channel's name (null on the custom channel). */
  channelName: string | null;
}) {
  const last = c.lastMessage;
  return (
    <UnstyledButton
      component={Link}
      to={`/inbox/${c.id}${search ? `?${search}` : ""}`}
      aria-current={selected ? "page" : undefined}
      display="block"
      p="xs"
      w="100%"
      style={{
        borderRadius: "var(--mantine-radius-sm)",
        background: selected ? "var(--mantine-color-blue-light)" : undefined,
      }}
    >
      <Group justify="space-between" wrap="nowrap" gap="xs">
        <Text fw={c.unreadCount > 0 ? 700 : 500} size="sm" truncate>
          {contactLabel(c.contact)}
        </Text>
        <Text size="xs" c="dimmed" style={{ flexShrink: 0 }}>
          {shortTime(c.lastMessageAt)}
        </Text>
      </Group>
      <Text size="sm" c="dimmed" truncate>
        {last ? `${last.direction === "outbound" ? "You: " : ""}${last.body ?? ""}` : "No messages"}
      </Text>
      <Group gap={4} mt={4}>
        <Text span c="dimmed" lh={0} data-testid="channel-icon">
          <ChannelIcon kind={c.channelType} size={14} />
        </Text>
        {channelName && (
          <Badge size="xs" variant="outline" color="gray">
            {channelName}
          </Badge>
        )}
        {c.channel && (
          <Badge size="xs" variant="outline" color="gray">
            {c.channel}
          </Badge>
        )}
        {c.unreadCount > 0 && (
          <Badge size="xs" color="blue" aria-label={`${c.unreadCount} unread`}>
            {c.unreadCount}
          </Badge>
        )}
        {c.humanAlert && (
          <Badge size="xs" color="red" variant="filled">
            Needs a human
          </Badge>
        )}
        {c.status === "resolved" && (
          <Badge size="xs" color="green" variant="light">
            Resolved
          </Badge>
        )}
        {c.assignee && (
          <Badge size="xs" color="violet" variant="light">
            {c.assignee.id === meId ? "You" : (c.assignee.name ?? "Assigned")}
          </Badge>
        )}
      </Group>
    </UnstyledButton>
  );
}
