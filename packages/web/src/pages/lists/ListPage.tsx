import { Button, Group, Paper, Select, Stack, Table } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useState } from "react";
import { useNavigate, useParams } from "react-router";
import { ConfirmButton } from "../../components/ConfirmButton.tsx";
import { NameForm } from "../../components/NameForm.tsx";
import { PagedTable } from "../../components/PagedTable.tsx";
import { PageHeader } from "../../components/PageHeader.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../components/States.tsx";
import { contactName } from "../../lib/format.ts";
import { useContactPicker } from "../../lib/queries/contacts.ts";
import {
  useDeleteList,
  useList,
  useListMembers,
  useListMembership,
  useRenameList,
} from "../../lib/queries/lists.ts";
import { useDocumentTitle } from "../../lib/useDocumentTitle.ts";
import { ContactCells } from "../contacts/ContactCells.tsx";
import { AddMembersButton } from "./AddMembersDialog.tsx";
import { ListId } from "./ListsPage.tsx";

export function ListPage() {
  useDocumentTitle("List");
  const { listId = "" } = useParams();
  const navigate = useNavigate();
  const [renaming, setRenaming] = useState(false);
  const [search, setSearch] = useState("");
  const [picked, setPicked] = useState<string | null>(null);
  const [debounced] = useDebouncedValue(search, 250);
  const list = useList(listId);
  const members = useListMembers(listId);
  const candidates = useContactPicker(debounced);
  const rename = useRenameList(listId);
  const add = useListMembership("add");
  const remove = useListMembership("remove");
  const del = useDeleteList(listId);

  if (list.isPending) return <LoadingState label="Loading the list" />;
  if (list.isError) return <ErrorState error={list.error} onRetry={() => void list.refetch()} />;
  const rows = members.data?.pages.flatMap((p) => p.data) ?? [];

  return (
    <Stack gap="md" maw={860}>
      <PageHeader
        title={list.data.name}
        subtitle={`${list.data.memberCount} ${list.data.memberCount === 1 ? "member" : "members"}`}
      >
        <ListId id={list.data.id} />
      </PageHeader>
      <Paper withBorder p="sm" radius="md">
        {renaming ? (
          <NameForm
            label="New name"
            initialName={list.data.name}
            submitLabel="Rename list"
            onSubmit={(name) => rename.mutate(name, { onSuccess: () => setRenaming(false) })}
            pending={rename.isPending}
            error={rename.error}
            onCancel={() => setRenaming(false)}
          />
        ) : (
          <Group gap="xs">
            <Button variant="default" onClick={() => setRenaming(true)}>
              Rename
            </Button>
            <ConfirmButton
              triggerLabel="Delete…"
              title="Delete this list?"
              confirmLabel="Delete list"
              onConfirm={() =>
                del.mutate(undefined, { onSuccess: () => navigate("/lists", { replace: true }) })
              }
              pending={del.isPending}
              error={del.error}
            >
              The list goes; its contacts stay.
            </ConfirmButton>
          </Group>
        )}
      </Paper>
      <Paper withBorder p="sm" radius="md">
        <Group align="flex-end" gap="xs">
          <Select
            label="Add a contact"
            placeholder="Type a name, phone or email"
            searchable
            searchValue={search}
            onSearchChange={setSearch}
            filter={({ options }) => options}
            data={(candidates.data?.data ?? []).map((c) => ({
              value: c.id,
              label: `${contactName(c)}${c.phone ? ` · ${c.phone}` : c.email ? ` · ${c.email}` : ""}`,
            }))}
            value={picked}
            onChange={setPicked}
            nothingFoundMessage="No contact matches"
            style={{ flex: 1 }}
          />
          <Button
            disabled={!picked}
            loading={add.isPending}
            onClick={() =>
              picked &&
              add.mutate(
                { listId, contactId: picked },
                {
                  onSuccess: () => {
                    setPicked(null);
                    setSearch("");
                  },
                },
              )
            }
          >
            Add to list
          </Button>
          <AddMembersButton listId={listId} />
        </Group>
      </Paper>
      <PagedTable
        query={members}
        rows={members.data ? rows : undefined}
        loadingLabel="Loading members"
        empty={<EmptyState title="No members yet">Add contacts above.</EmptyState>}
        label="Members"
        columns={["Name", "Phone", "Email", "Remove"]}
        minWidth={600}
        cells={(c) => (
          <>
            <ContactCells contact={c} name={contactName(c)} />
            <Table.Td>
              <Button
                size="compact-xs"
                variant="subtle"
                color="red"
                aria-label={`Remove ${contactName(c)} from the list`}
                onClick={() => remove.mutate({ listId, contactId: c.id })}
              >
                Remove
              </Button>
            </Table.Td>
          </>
        )}
      />
    </Stack>
  );
}
