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
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { EmptyState, ErrorState, LoadingState } from "../../components/States.tsx";
import { api, errorMessage } from "../../lib/api.ts";
import { notify } from "../../lib/notify.ts";
import { type ContactJson, contactName, type ListJson, type Page } from "../../lib/types.ts";
import { ListId } from "./ListsPage.tsx";

export function ListPage() {
  const { listId = "" } = useParams();
  const client = useQueryClient();
  const navigate = useNavigate();
  const [newName, setNewName] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [search, setSearch] = useState("");
  const [picked, setPicked] = useState<string | null>(null);
  const [debounced] = useDebouncedValue(search, 250);
  const list = useQuery({
    queryKey: ["list", listId],
    queryFn: () => api<ListJson>("GET", `/lists/${listId}`),
  });
  const members = useInfiniteQuery({
    queryKey: ["list", listId, "members"],
    queryFn: ({ pageParam }) =>
      api<Page<ContactJson>>(
        "GET",
        `/lists/${listId}/contacts?limit=50${pageParam ? `&cursor=${pageParam}` : ""}`,
      ),
    initialPageParam: "",
    getNextPageParam: (last) => (last.hasMore ? (last.nextCursor ?? undefined) : undefined),
  });
  const candidates = useQuery({
    queryKey: ["contacts", "pick", debounced],
    queryFn: () =>
      api<Page<ContactJson>>(
        "GET",
        `/contacts?limit=20${debounced.trim() ? `&q=${encodeURIComponent(debounced.trim())}` : ""}`,
      ),
  });
  const refresh = () => {
    void client.invalidateQueries({ queryKey: ["list", listId] });
    void client.invalidateQueries({ queryKey: ["lists"] });
  };
  const rename = useMutation({
    mutationFn: (name: string) => api<ListJson>("PATCH", `/lists/${listId}`, { name }),
    onSuccess: () => {
      setNewName(null);
      refresh();
    },
  });
  const add = useMutation({
    mutationFn: (contactId: string) => api("POST", `/lists/${listId}/contacts`, { contactId }),
    onSuccess: () => {
      setPicked(null);
      setSearch("");
      refresh();
    },
    onError: (err) => notify(errorMessage(err), "error"),
  });
  const remove = useMutation({
    mutationFn: (contactId: string) => api("DELETE", `/lists/${listId}/contacts/${contactId}`),
    onSuccess: refresh,
    onError: (err) => notify(errorMessage(err), "error"),
  });
  const del = useMutation({
    mutationFn: () => api("DELETE", `/lists/${listId}`),
    onSuccess: () => {
      notify("List deleted; its contacts are kept");
      void client.invalidateQueries({ queryKey: ["lists"] });
      navigate("/lists", { replace: true });
    },
  });

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
                  <Button color="red" loading={del.isPending} onClick={() => del.mutate()}>
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
              rename.mutate(newName.trim());
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
          <Button disabled={!picked} loading={add.isPending} onClick={() => picked && add.mutate(picked)}>
            Add to list
          </Button>
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
                    onClick={() => remove.mutate(c.id)}
                  >
                    Remove
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {members.hasNextPage && (
        <Button
          variant="subtle"
          loading={members.isFetchingNextPage}
          onClick={() => void members.fetchNextPage()}
        >
          Load more
        </Button>
      )}
    </Stack>
  );
}
