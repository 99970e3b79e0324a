import {
  Alert,
  Anchor,
  Button,
  Group,
  Paper,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { LoadMore } from "../../components/LoadMore.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../components/States.tsx";
import { errorMessage } from "../../lib/api.ts";
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
import { AddMembersButton } from "./AddMembersDialog.tsx";
import { ListId } from "./ListsPage.tsx";

export function ListPage() {
  useDocumentTitle("List");
  const { listId = "" } = useParams();
  const navigate = useNavigate();
  const [newName, setNewName] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
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
      <Group justify="space-between" align="flex-start">
        <div>
          <Title order={1} size="h2">
            {list.data.name}
          </Title>
          <Text size="sm" c="dimmed">
            {list.data.memberCount} {list.data.memberCount === 1 ? "member" : "members"}
          </Text>
        </div>
        <ListId id={list.data.id} />
      </Group>
      <Paper withBorder p="sm" radius="md">
        {newName === null ? (
          <Group gap="xs">
            <Button variant="default" onClick={() => setNewName(list.data.name)}>
              Rename
            </Button>
            {confirmDelete ? (
              <Alert color="red" role="alertdialog" aria-label="Confirm deletion" title="Delete this list?">
                <Text size="sm" mb="xs">
                  The list goes; its contacts stay.
                </Text>
                <Group gap="xs">
                  <Button
                    color="red"
                    loading={del.isPending}
                    onClick={() =>
                      del.mutate(undefined, { onSuccess: () => navigate("/lists", { replace: true }) })
                    }
                  >
                    Delete list
                  </Button>
                  <Button variant="default" onClick={() => setConfirmDelete(false)}>
                    Cancel
                  </Button>
                </Group>
              </Alert>
            ) : (
              <Button variant="light" color="red" onClick={() => setConfirmDelete(true)}>
                Delete…
              </Button>
            )}
          </Group>
        ) : (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              rename.mutate(newName.trim(), { onSuccess: () => setNewName(null) });
            }}
            noValidate
          >
            <Group align="flex-start" gap="xs">
              <TextInput
                label="New name"
                value={newName}
                onChange={(e) => setNewName(e.currentTarget.value)}
                error={rename.isError ? errorMessage(rename.error) : undefined}
                maxLength={200}
                style={{ flex: 1 }}
              />
              <Button type="submit" mt={25} loading={rename.isPending}>
                Rename list
              </Button>
              <Button variant="default" mt={25} onClick={() => setNewName(null)}>
                Cancel
              </Button>
            </Group>
          </form>
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
      {members.isPending && <LoadingState label="Loading members" />}
      {members.data && rows.length === 0 && (
        <EmptyState title="No members yet">Add contacts above.</EmptyState>
      )}
      {rows.length > 0 && (
        <Table striped aria-label="Members">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Phone</Table.Th>
              <Table.Th>Email</Table.Th>
              <Table.Th>Remove</Table.Th>
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
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <LoadMore pages={members} />
    </Stack>
  );
}
