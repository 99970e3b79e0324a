// The contact page's conversations: one per channel the contact wrote on, newest activity first, each
// a link into the inbox (whose contact panel links back here).
import { Anchor, Group, Text } from "@mantine/core";
import { Link } from "react-router";
import { ChannelIcon } from "../../components/ChannelIcon.tsx";
import { PlainList } from "../../components/PlainList.tsx";
import { Section } from "../../components/Section.tsx";
import { errorMessage } from "../../lib/api.ts";
import { channelKindLabel } from "../../lib/channels.ts";
import { shortTime } from "../../lib/format.ts";
import { useContactConversations } from "../../lib/queries/conversations.ts";

export function ContactConversations({ contactId }: { contactId: string }) {
  const conversations = useContactConversations(contactId);
  const rows = conversations.data?.data ?? [];
  return (
    <Section title="Conversations">
      {conversations.isPending ? (
        <Text size="sm" c="dimmed">
          Loading the conversations…
        </Text>
      ) : conversations.isError ? (
        <Text size="sm" c="red.9" role="alert">
          The conversations could not be loaded: {errorMessage(conversations.error)}
        </Text>
      ) : rows.length === 0 ? (
        <Text size="sm" c="dimmed">
          No conversation yet.
        </Text>
      ) : (
        <PlainList gap={6} aria-label="Conversations">
          {rows.map((conv) => (
            <Group key={conv.id} component="li" gap="xs" wrap="nowrap">
              <ChannelIcon kind={conv.channelType} />
              <Anchor component={Link} to={`/inbox/${conv.id}`} size="sm" style={{ minWidth: 0 }} truncate>
                {conv.channel ?? channelKindLabel(conv.channelType)} ·{" "}
                {conv.status === "open" ? "Open" : "Resolved"}
                {conv.lastMessageAt ? ` · ${shortTime(conv.lastMessageAt)}` : ""}
                {conv.lastMessage?.body ? ` · ${conv.lastMessage.body}` : ""}
              </Anchor>
            </Group>
          ))}
        </PlainList>
      )}
    </Section>
  );
}
