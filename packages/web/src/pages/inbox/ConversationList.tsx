import {
  Badge,
  Box,
  Button,
  Checkbox,
  Group,
  Paper,
  Select,
  Stack,
  Text,
  TextInput,
  UnstyledButton,
} from "@mantine/core";
import { useDebouncedValue, useDisclosure, useMediaQuery } from "@mantine/hooks";
import { Link, useSearchParams } from "react-router";
import { ChannelIcon } from "../../components/ChannelIcon.tsx";
import { LoadMore } from "../../components/LoadMore.tsx";
import { PlainList } from "../../components/PlainList.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../components/States.tsx";
import type { Conversation, Session } from "../../lib/api-types.ts";
import { CHANNEL_TYPE_LABELS, channelKindLabel } from "../../lib/channels.ts";
import { contactLabel, fullTime } from "../../lib/format.ts";
import { useChannels } from "../../lib/queries/channels.ts";
import { useConversations } from "../../lib/queries/conversations.ts";
import { relativeTime } from "../../lib/relative-time.ts";
import {
  ConversationBulkBar,
  SelectableConversation,
  useConversationSelection,
} from "./ConversationBulk.tsx";
import { SearchResults } from "./SearchResults.tsx";

/** Below Mantine's `sm` breakpoint (768 px): a phone, where the filters fold away. */
export const PHONE_QUERY = "(max-width: 47.99em)";
const STATUS_FILTERS = [
  { value: "open", label: "Open" },
  { value: "resolved", label: "Resolved" },
  { value: "all", label: "All" },
];
const ASSIGNEE_FILTERS = [
  { value: "", label: "Anyone" },
  { value: "me", label: "To me" },
  { value: "unassigned", label: "Unassigned" },
];

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
  // On a phone the filters take half the screen: folded behind "Filters" until asked for.
  const phone = useMediaQuery(PHONE_QUERY, false, { getInitialValueInEffect: false });
  const [filtersOpen, { toggle: toggleFilters }] = useDisclosure(false);
  const selection = useConversationSelection();

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
        {phone && (
          <Button
            variant="default"
            size="xs"
            onClick={toggleFilters}
            aria-expanded={filtersOpen}
            aria-controls="inbox-filters"
          >
            Filters
          </Button>
        )}
      </Stack>
      <Stack gap="xs" id="inbox-filters" display={phone && !filtersOpen ? "none" : undefined} mt="xs">
        <Group gap="xs" grow>
          <Select
            label="Status"
            data={STATUS_FILTERS}
            value={status}
            onChange={(v) => filters.set("status", v === "open" ? "" : (v ?? ""))}
            allowDeselect={false}
          />
          <Select
            label="Assigned"
            data={ASSIGNEE_FILTERS}
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
      {/* A plain vertical scroller: Mantine's ScrollArea lays its content out as a table, which grew
          the rows to their text's width (clipped times, no ellipsis, names scrolled away). */}
      {/* With a search, its results (the matching messages) take the list's place. */}
      {q.trim() && <SearchResults filters={query} search={filters.search} selectedId={selectedId} />}
      <Box
        display={q.trim() ? "none" : undefined}
        mah={phone ? undefined : "calc(100vh - 360px)"}
        mt="sm"
        style={{ overflowY: "auto", overflowX: "hidden" }}
      >
        {list.isPending && <LoadingState label="Loading conversations" />}
        {list.isError && <ErrorState error={list.error} onRetry={() => void list.refetch()} />}
        {list.data && conversations.length === 0 && (
          <EmptyState title={filtered ? "No conversation matches" : "No conversations yet"}>
            {filtered
              ? "Try other filters or another search."
              : `When your system posts a message to ${window.location.origin}/v1/incoming_custom_channel_message, the conversation appears here at once.`}
          </EmptyState>
        )}
        <ConversationBulkBar shown={conversations} selection={selection} meId={session.user.id} />
        <PlainList gap={4} aria-label="Conversation list">
          {conversations.map((c) => (
            <SelectableConversation key={c.id} conversation={c} selection={selection}>
              <ConversationRow
                conversation={c}
                selected={c.id === selectedId}
                search={filters.search}
                meId={session.user.id}
                channelName={channelName(c.channelId) ?? c.channel ?? channelKindLabel(c.channelType)}
              />
            </SelectableConversation>
          ))}
        </PlainList>
        <LoadMore pages={list} fullWidth mt="xs" />
      </Box>
    </Paper>
  );
}

/** Who wrote an outgoing last message, as the preview says it: "Bot:", "Sam:", "You:". */
export function previewAuthor(last: NonNullable<Conversation["lastMessage"]>, meId: string): string | null {
  if (last.direction !== "outbound") return null;
  switch (last.sender) {
    case "bot":
      return "Bot";
    case "human": {
      if (last.userId === meId) return "You";
      // A teammate by first name (as chat apps do); an e-mail (no name set) by its local part.
      const name = last.senderName?.trim();
      if (!name) return "A teammate";
      return name.includes("@") ? (name.split("@")[0] ?? name) : (name.split(/\s+/)[0] ?? name);
    }
    case "api":
      return "API";
    default:
      // A server from before the sender was in the list.
      return "You";
  }
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
  /** The channel's name: the built-in channel's, the custom channel's label, or the type's. */
  channelName: string;
}) {
  const last = c.lastMessage;
  const author = last ? previewAuthor(last, meId) : null;
  // The contact's name; without one, how the channel knows them (sender or widget id, phone, e-mail).
  const label = contactLabel(c.contact);
  const named = Boolean(c.contact.name);
  const unread = c.unreadCount > 0;
  return (
    <UnstyledButton
      component={Link}
      to={`/inbox/${c.id}${search ? `?${search}` : ""}`}
      aria-current={selected ? "page" : undefined}
      data-testid="conversation-row"
      display="block"
      p="xs"
      w="100%"
      style={{
        borderRadius: "var(--mantine-radius-sm)",
        background: selected ? "var(--mantine-color-blue-light)" : undefined,
        minWidth: 0,
      }}
    >
      <Group justify="space-between" wrap="nowrap" gap="xs">
        <Group gap={6} wrap="nowrap" style={{ minWidth: 0, flex: 1 }}>
          <Text span c="dimmed" lh={0} data-testid="channel-icon">
            <ChannelIcon kind={c.channelType} size={14} />
          </Text>
          <Text
            fw={unread ? 700 : 500}
            size="sm"
            truncate="end"
            data-testid="conversation-name"
            style={{ minWidth: 0 }}
          >
            {label}
          </Text>
        </Group>
        <Text
          component="time"
          dateTime={c.lastMessageAt ?? undefined}
          title={fullTime(c.lastMessageAt)}
          size="xs"
          c={unread ? "blue.9" : "dimmed"}
          fw={unread ? 700 : undefined}
          data-testid="conversation-time"
          style={{ flexShrink: 0, whiteSpace: "nowrap" }}
        >
          {relativeTime(c.lastMessageAt)}
        </Text>
      </Group>
      <Group justify="space-between" wrap="nowrap" gap="xs">
        <Text
          size="sm"
          c="dimmed"
          truncate="end"
          data-testid="conversation-preview"
          style={{ minWidth: 0, flex: 1 }}
        >
          {last ? `${author ? `${author}: ` : ""}${last.body ?? ""}` : "No messages"}
        </Text>
        {unread && (
          <Badge size="sm" color="blue" aria-label={`${c.unreadCount} unread`} style={{ flexShrink: 0 }}>
            {c.unreadCount}
          </Badge>
        )}
      </Group>
      <Group gap={4} mt={4} wrap="wrap" style={{ minWidth: 0 }}>
        <Badge
          size="xs"
          variant="outline"
          color="gray"
          maw="100%"
          // Without a name the channel tells who this is ("web:visitor_… · Website chat").
          fw={named ? undefined : 700}
        >
          {channelName}
        </Badge>
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
          <Badge size="xs" color="violet" variant="light" maw="100%">
            {c.assignee.id === meId ? "You" : (c.assignee.name ?? "Assigned")}
          </Badge>
        )}
      </Group>
    </UnstyledButton>
  );
}
