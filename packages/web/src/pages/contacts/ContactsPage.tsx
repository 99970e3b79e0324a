import { Anchor, Badge, Button, Group, Modal, Paper, Stack, Table, Text, TextInput } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { PagedTable } from "../../components/PagedTable.tsx";
import { PageHeader } from "../../components/PageHeader.tsx";
import { EmptyState } from "../../components/States.tsx";
import { displayContactName } from "../../lib/contact-name.ts";
import { contactName } from "../../lib/format.ts";
import { useContacts, useCreateContact } from "../../lib/queries/contacts.ts";
import { useDocumentTitle } from "../../lib/useDocumentTitle.ts";
import { ContactBulkActions } from "./BulkActions.tsx";
import { ContactCells } from "./ContactCells.tsx";
import { ContactForm, contactBody, valuesOf } from "./ContactForm.tsx";
import { ImportDialog } from "./ImportDialog.tsx";

export function ContactsPage() {
  useDocumentTitle("Contacts");
  const [params, setParams] = useSearchParams();
  const [creating, setCreating] = useState(false);
  const [importing, setImporting] = useState(false);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const navigate = useNavigate();
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
  const contacts = useContacts(query);
  const create = useCreateContact();
  const rows = contacts.data?.pages.flatMap((p) => p.data) ?? [];
  const filtered = Boolean(debouncedQ.trim() || label.trim());
  // Only what is shown counts: a filter that hides a selected contact leaves it out of the action.
  const selectedIds = rows.filter((c) => selected.has(c.id)).map((c) => c.id);

  return (
    <Stack gap="md">
      <PageHeader title="Contacts">
        <Group gap="xs">
          <Button variant="default" onClick={() => setImporting(true)}>
            Import contacts
          </Button>
          <Button onClick={() => setCreating(true)}>New contact</Button>
        </Group>
      </PageHeader>
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
      <ContactBulkActions
        ids={selectedIds}
        onClear={() => setSelected(new Set())}
        onDeleted={() => setSelected(new Set())}
      />
      <PagedTable
        query={contacts}
        rows={contacts.data ? rows : undefined}
        loadingLabel="Loading contacts"
        empty={
          <EmptyState title={filtered ? "No contact matches" : "No contacts yet"}>
            {filtered
              ? "Try another search or label."
              : "Contacts appear here when a message arrives, when you create one, or through the API."}
          </EmptyState>
        }
        label="Contacts"
        columns={["Name", "Phone", "Email", "Labels", "Conversation"]}
        minWidth={640}
        highlightOnHover
        selection={{ selected, onChange: setSelected, rowName: contactName }}
        cells={(c) => (
          <>
            <ContactCells contact={c} name={displayContactName(c)} />
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
          </>
        )}
      />
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
            const c = await create.mutateAsync(contactBody(values));
            setCreating(false);
            navigate(`/contacts/${c.id}`);
          }}
        />
      </Modal>
    </Stack>
  );
}
