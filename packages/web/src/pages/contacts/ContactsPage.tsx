import {
  Anchor,
  Badge,
  Button,
  Group,
  Modal,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { EmptyState, ErrorState, LoadingState } from "../../components/States.tsx";
import { api } from "../../lib/api.ts";
import { notify } from "../../lib/notify.ts";
import { type ContactJson, contactName, type Page } from "../../lib/types.ts";
import { ContactForm, contactBody, valuesOf } from "./ContactForm.tsx";
import { ImportDialog } from "./ImportDialog.tsx";

type Row = ContactJson & { conversationId: string | null };

export function ContactsPage() {
  const [params, setParams] = useSearchParams();
  const [creating, setCreating] = useState(false);
  const [importing, setImporting] = useState(false);
  const navigate = useNavigate();
  const client = useQueryClient();
  const q = params.get("q") ?? "";
  const label = params.get("label") ?? "";
  const [debouncedQ] = useDebouncedValue(q, 250);
  const setParam = (name: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    setParams(next, { replace: true });
  };
  const query = new URLSearchParams();
  if (debouncedQ.trim()) query.set("q", debouncedQ.trim());
  if (label.trim()) query.set("label", label.trim());
  const contacts = useInfiniteQuery({
    queryKey: ["contacts", query.toString()],
    queryFn: ({ pageParam }) => {
      const page = new URLSearchParams(query);
      page.set("limit", "50");
      if (pageParam) page.set("cursor", pageParam);
      return api<Page<Row>>("GET", `/contacts?${page}`);
    },
    initialPageParam: "",
    getNextPageParam: (last) => (last.hasMore ? (last.nextCursor ?? undefined) : undefined),
  });
  const rows = contacts.data?.pages.flatMap((p) => p.data) ?? [];
  const filtered = Boolean(debouncedQ.trim() || label.trim());

  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={1} size="h2">
          Contacts
        </Title>
        <Group gap="xs">
          <Button variant="default" onClick={() => setImporting(true)}>
            Import contacts
          </Button>
          <Button onClick={() => setCreating(true)}>New contact</Button>
        </Group>
      </Group>
      <Paper withBorder p="sm" radius="md">
        <Group grow align="flex-end">
          <TextInput
            label="Search contacts"
            placeholder="Name, phone, email or channel id"
            type="search"
            value={q}
            onChange={(e) => setParam("q", e.currentTarget.value)}
          />
          <TextInput
            label="Label filter"
            placeholder="For example vip"
            value={label}
            onChange={(e) => setParam("label", e.currentTarget.value)}
          />
        </Group>
      </Paper>
      {contacts.isPending && <LoadingState label="Loading contacts" />}
      {contacts.isError && <ErrorState error={contacts.error} onRetry={() => void contacts.refetch()} />}
      {contacts.data && rows.length === 0 && (
        <EmptyState title={filtered ? "No contact matches" : "No contacts yet"}>
          {filtered
            ? "Try another search or label."
            : "Contacts appear here when a message arrives, when you create one, or through the API."}
        </EmptyState>
      )}
      {rows.length > 0 && (
        <Table.ScrollContainer minWidth={640}>
          <Table striped highlightOnHover aria-label="Contacts">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Phone</Table.Th>
                <Table.Th>Email</Table.Th>
                <Table.Th>Labels</Table.Th>
                <Table.Th>Conversation</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((c) => (
                <Table.Tr key={c.id}>
                  <Table.Td>
                    <Anchor component={Link} to={`/contacts/${c.id}`}>
                      {contactName(c)}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>{c.phone ?? "—"}</Table.Td>
                  <Table.Td>{c.email ?? "—"}</Table.Td>
                  <Table.Td>
                    <Group gap={4}>
                      {c.labels.map((l) => (
                        <Badge key={l} variant="light" size="sm">
                          {l}
                        </Badge>
                      ))}
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    {c.conversationId ? (
                      <Anchor component={Link} to={`/inbox/${c.conversationId}`} size="sm">
                        Open
                      </Anchor>
                    ) : (
                      <Text size="sm" c="dimmed">
                        None
                      </Text>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {contacts.hasNextPage && (
        <Button
          variant="subtle"
          loading={contacts.isFetchingNextPage}
          onClick={() => void contacts.fetchNextPage()}
        >
          Load more
        </Button>
      )}
      <ImportDialog opened={importing} onClose={() => setImporting(false)} />
      <Modal
        opened={creating}
        onClose={() => setCreating(false)}
        title="New contact"
        size="lg"
        closeButtonProps={{ "aria-label": "Close" }}
      >
        <ContactForm
          initial={valuesOf()}
          submitLabel="Create"
          onCancel={() => setCreating(false)}
          onSubmit={async (values) => {
            const c = await api<ContactJson & { created: boolean }>("POST", "/contacts", contactBody(values));
            setCreating(false);
            void client.invalidateQueries({ queryKey: ["contacts"] });
            notify(c.created ? "Contact created" : "A contact with this phone already exists: here it is");
            navigate(`/contacts/${c.id}`);
          }}
        />
      </Modal>
    </Stack>
  );
}
