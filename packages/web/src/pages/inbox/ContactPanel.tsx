// Who the team is talking to, beside the conversation: name, phone, e-mail, the ids on each channel,
// labels (edited here), lists and the contact's other conversations, with a link to the contact page.
// Beside the thread from 1200 px (Mantine's lg); on narrower screens behind a "Contact details" button
// that opens it in a drawer.
import {
  Anchor,
  Badge,
  Box,
  Button,
  CloseButton,
  Code,
  Drawer,
  Group,
  Paper,
  Stack,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { type FormEvent, type ReactNode, useState } from "react";
import { Link } from "react-router";
import { ChannelIcon } from "../../components/ChannelIcon.tsx";
import { PlainList } from "../../components/PlainList.tsx";
import type { Conversation } from "../../lib/api-types.ts";
import { channelKindLabel } from "../../lib/channels.ts";
import { channelIdOf, displayContactName } from "../../lib/contact-name.ts";
import { shortTime } from "../../lib/format.ts";
import { useChannels } from "../../lib/queries/channels.ts";
import { useContact, useSetContactLabels } from "../../lib/queries/contacts.ts";
import { useContactConversations, useConversation } from "../../lib/queries/conversations.ts";

/** The conversation with its contact panel: beside it on wide screens, in a drawer on narrow ones. */
export function WithContactPanel({
  conversationId,
  children,
}: {
  conversationId: string;
  children: ReactNode;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Group hiddenFrom="lg" justify="flex-end" mb="xs">
        <Button size="xs" variant="default" onClick={() => setOpen(true)}>
          Contact details
        </Button>
      </Group>
      <Group align="flex-start" gap="md" wrap="nowrap">
        <Box style={{ flex: 1, minWidth: 0 }}>{children}</Box>
        <Box visibleFrom="lg" w={280} style={{ flexShrink: 0 }}>
          <ContactPanel conversationId={conversationId} />
        </Box>
      </Group>
      <Drawer
        opened={open}
        onClose={() => setOpen(false)}
        position="right"
        title="Contact details"
        closeButtonProps={{ "aria-label": "Close contact details" }}
        size="sm"
      >
        <ContactPanel conversationId={conversationId} />
      </Drawer>
    </>
  );
}

export function ContactPanel({ conversationId }: { conversationId: string }) {
  // The same query as the conversation itself: no second request.
  const detail = useConversation(conversationId);
  const c = detail.data?.conversation;
  return (
    <Paper withBorder radius="md" p="sm" component="section" aria-label="Contact details">
      {c ? (
        <ContactDetails conversation={c} />
      ) : (
        <Text size="sm" c="dimmed">
          Loading the contact…
        </Text>
      )}
    </Paper>
  );
}

function ContactDetails({ conversation: c }: { conversation: Conversation }) {
  const contactId = c.contact.id;
  const contact = useContact(contactId);
  const conversations = useContactConversations(contactId);
  const channels = useChannels();
  const name = displayContactName({ ...c.contact, channelType: c.channelType });
  const channelName = (conv: Conversation) =>
    (conv.channelId && channels.data?.data.find((ch) => ch.id === conv.channelId)?.name) ||
    conv.channel ||
    channelKindLabel(conv.channelType);
  const all = conversations.data?.data ?? [c];
  const others = all.filter((x) => x.id !== c.id);

  return (
    <Stack gap="sm">
      <div>
        <Title order={2} size="h4">
          {name}
        </Title>
        <Anchor component={Link} to={`/contacts/${contactId}`} size="sm">
          Open contact page
        </Anchor>
      </div>
      <Field label="Phone">{c.contact.phone ?? <Dimmed>No phone</Dimmed>}</Field>
      <Field label="E-mail">{c.contact.email ?? <Dimmed>No e-mail</Dimmed>}</Field>
      <Field label="Channel ids">
        <PlainList gap={4} aria-label="Channel ids">
          {all.map((conv) => (
            <Group key={conv.id} component="li" gap={6} wrap="nowrap">
              <ChannelIcon kind={conv.channelType} />
              <Text size="sm" truncate>
                {channelName(conv)}
              </Text>
              <Code style={{ overflowWrap: "anywhere" }}>{idOnChannel(conv)}</Code>
            </Group>
          ))}
        </PlainList>
      </Field>
      <Labels contactId={contactId} labels={contact.data?.contact.labels ?? null} />
      <Field label="Lists">
        {!contact.data ? (
          <Dimmed>Loading…</Dimmed>
        ) : contact.data.lists.length === 0 ? (
          <Dimmed>Not on any list.</Dimmed>
        ) : (
          <PlainList gap={2} aria-label="Lists">
            {contact.data.lists.map((l) => (
              <li key={l.id}>
                <Anchor component={Link} to={`/lists/${l.id}`} size="sm">
                  {l.name}
                </Anchor>
              </li>
            ))}
          </PlainList>
        )}
      </Field>
      <Field label="Previous conversations">
        {others.length === 0 ? (
          <Dimmed>{conversations.isPending ? "Loading…" : "No other conversations."}</Dimmed>
        ) : (
          <PlainList gap={2} aria-label="Previous conversations">
            {others.map((conv) => (
              <li key={conv.id}>
                <Anchor component={Link} to={`/inbox/${conv.id}`} size="sm">
                  {channelName(conv)} · {conv.status === "open" ? "Open" : "Resolved"}
                  {conv.lastMessageAt ? ` · ${shortTime(conv.lastMessageAt)}` : ""}
                </Anchor>
              </li>
            ))}
          </PlainList>
        )}
      </Field>
    </Stack>
  );
}

/** The contact's id on the conversation's channel: the phone on WhatsApp and SMS, else the sender id. */
function idOnChannel(conv: Conversation): string {
  const sender = channelIdOf(conv.contact.fromId)?.id ?? null;
  const byPhone = conv.channelType === "whatsapp" || conv.channelType === "twilio_sms";
  return (byPhone ? (conv.contact.phone ?? sender) : (sender ?? conv.contact.phone)) ?? "—";
}

function Labels({ contactId, labels }: { contactId: string; labels: string[] | null }) {
  const [draft, setDraft] = useState("");
  const save = useSetContactLabels(contactId);
  const add = (e: FormEvent) => {
    e.preventDefault();
    const label = draft.trim();
    if (!label || !labels) return;
    if (labels.some((l) => l.toLowerCase() === label.toLowerCase())) {
      setDraft("");
      return;
    }
    save.mutate([...labels, label], { onSuccess: () => setDraft("") });
  };
  return (
    <Field label="Labels">
      <Stack gap={6}>
        {labels === null ? (
          <Dimmed>Loading…</Dimmed>
        ) : labels.length === 0 ? (
          <Dimmed>No labels.</Dimmed>
        ) : (
          <PlainList inline gap={4} aria-label="Labels">
            {labels.map((l) => (
              <li key={l}>
                <Badge
                  variant="light"
                  tt="none"
                  pr={2}
                  rightSection={
                    <CloseButton
                      size="xs"
                      aria-label={`Remove label ${l}`}
                      disabled={save.isPending}
                      onClick={() => save.mutate(labels.filter((x) => x !== l))}
                    />
                  }
                >
                  {l}
                </Badge>
              </li>
            ))}
          </PlainList>
        )}
        <form onSubmit={add}>
          <Group gap={4} wrap="nowrap" align="flex-end">
            <TextInput
              size="xs"
              label="New label"
              placeholder="e.g. vip"
              value={draft}
              maxLength={50}
              onChange={(e) => setDraft(e.currentTarget.value)}
              style={{ flex: 1 }}
            />
            <Button size="xs" variant="light" type="submit" loading={save.isPending} disabled={!labels}>
              Add label
            </Button>
          </Group>
        </form>
      </Stack>
    </Field>
  );
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <Text size="xs" fw={600} c="dimmed" tt="uppercase" mb={2}>
        {label}
      </Text>
      {typeof children === "string" ? <Text size="sm">{children}</Text> : children}
    </div>
  );
}

function Dimmed({ children }: { children: ReactNode }) {
  return (
    <Text size="sm" c="dimmed">
      {children}
    </Text>
  );
}
