import { Alert, Anchor, Badge, Button, Group, Paper, Select, Stack, Switch, Text } from "@mantine/core";
import { useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { ConfirmButton } from "../../components/ConfirmButton.tsx";
import { PageHeader } from "../../components/PageHeader.tsx";
import { Section } from "../../components/Section.tsx";
import { ErrorState, LoadingState } from "../../components/States.tsx";
import type { Session } from "../../lib/api-types.ts";
import { displayContactName } from "../../lib/contact-name.ts";
import { fullTime } from "../../lib/format.ts";
import {
  useContact,
  useDeleteContact,
  useSetContactBot,
  useUpdateContact,
} from "../../lib/queries/contacts.ts";
import { useListChoices, useListMembership } from "../../lib/queries/lists.ts";
import { canManage } from "../../lib/session.ts";
import { useDocumentTitle } from "../../lib/useDocumentTitle.ts";
import { ContactConversations } from "./ContactConversations.tsx";
import { ContactForm, contactBody, valuesOf } from "./ContactForm.tsx";

export function ContactPage({ session }: { session: Session }) {
  useDocumentTitle("Contact");
  const { contactId = "" } = useParams();
  const navigate = useNavigate();
  const [listToAdd, setListToAdd] = useState<string | null>(null);
  const detail = useContact(contactId);
  const lists = useListChoices();
  const toggleBot = useSetContactBot(contactId);
  const update = useUpdateContact(contactId);
  const addToList = useListMembership("add");
  const removeFromList = useListMembership("remove");
  const erase = useDeleteContact(contactId);

  if (detail.isPending) return <LoadingState label="Loading the contact" />;
  if (detail.isError) return <ErrorState error={detail.error} onRetry={() => void detail.refetch()} />;
  const { contact: c, conversationId } = detail.data;
  const memberOf = new Set(detail.data.lists.map((l) => l.id));
  const otherLists = (lists.data?.data ?? []).filter((l) => !memberOf.has(l.id));

  return (
    <Stack gap="md" maw={760}>
      <PageHeader
        title={displayContactName({ ...c, fromId: detail.data.fromId, channelType: detail.data.channelType })}
      >
        {conversationId && (
          <Button component={Link} to={`/inbox/${conversationId}`} variant="light">
            Open conversation
          </Button>
        )}
      </PageHeader>
      <Text size="sm" c="dimmed">
        Created {fullTime(c.createdAt)} · id {c.id}
      </Text>
      {c.smsOptedOutAt && (
        <Alert color="orange" title="Opted out of SMS" data-testid="sms-opted-out">
          This contact texted STOP on {fullTime(c.smsOptedOutAt)}: Parley sends them no SMS until they text
          START (a reply or campaign message to them on SMS is marked Failed).
        </Alert>
      )}
      <Paper withBorder p="md" radius="md" component="section" aria-label="Details">
        <ContactForm
          key={c.updatedAt}
          initial={valuesOf(c)}
          submitLabel="Save changes"
          onSubmit={async (values) => {
            await update.mutateAsync(contactBody(values));
          }}
        />
      </Paper>
      <ContactConversations contactId={contactId} />
      <Paper withBorder p="md" radius="md" component="section" aria-label="Bot">
        <Switch
          label="The bot answers this contact"
          checked={c.botActive}
          disabled={toggleBot.isPending}
          onChange={(e) => toggleBot.mutate(e.currentTarget.checked)}
        />
      </Paper>
      <Section title="Lists">
        <Group gap="xs" mb="sm">
          {detail.data.lists.length === 0 && (
            <Text size="sm" c="dimmed">
              Not on any list.
            </Text>
          )}
          {detail.data.lists.map((l) => (
            <Badge
              key={l.id}
              variant="light"
              rightSection={
                <Button
                  size="compact-xs"
                  variant="subtle"
                  aria-label={`Take off ${l.name}`}
                  onClick={() => removeFromList.mutate({ listId: l.id, contactId })}
                >
                  ×
                </Button>
              }
            >
              <Anchor component={Link} to={`/lists/${l.id}`} size="xs" inherit>
                {l.name}
              </Anchor>
            </Badge>
          ))}
        </Group>
        <Group gap="xs" align="flex-end">
          <Select
            label="Add to a list"
            placeholder={otherLists.length ? "Pick a list" : "No other list"}
            data={otherLists.map((l) => ({ value: l.id, label: l.name }))}
            value={listToAdd}
            onChange={setListToAdd}
            searchable
            w={260}
          />
          <Button
            variant="light"
            disabled={!listToAdd}
            loading={addToList.isPending}
            onClick={() =>
              listToAdd &&
              addToList.mutate({ listId: listToAdd, contactId }, { onSuccess: () => setListToAdd(null) })
            }
          >
            Add
          </Button>
        </Group>
      </Section>
      {canManage(session) && (
        <Section title="Delete">
          <ConfirmButton
            triggerLabel="Delete contact…"
            title="Delete this contact for good?"
            confirmLabel="Delete for good"
            onConfirm={() =>
              erase.mutate(undefined, { onSuccess: () => navigate("/contacts", { replace: true }) })
            }
            pending={erase.isPending}
            error={erase.error}
          >
            The contact, its conversation, every message and stored attachment are erased at once. This cannot
            be undone.
          </ConfirmButton>
        </Section>
      )}
    </Stack>
  );
}
