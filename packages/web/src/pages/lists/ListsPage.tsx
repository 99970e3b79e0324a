import {
  Anchor,
  Button,
  Code,
  CopyButton,
  Group,
  Paper,
  Stack,
  Table,
  TextInput,
  Title,
} from "@mantine/core";
import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { EmptyState, ErrorState, LoadingState } from "../../components/States.tsx";
import { api, errorMessage } from "../../lib/api.ts";
import { fullTime } from "../../lib/format.ts";
import { notify } from "../../lib/notify.ts";
import type { ListJson, Page } from "../../lib/types.ts";

/** A list id with a copy button: the API's list endpoints take it. */
export function ListId({ id }: { id: string }) {
  return (
    <Group gap={6} wrap="nowrap">
      <Code>{id}</Code>
      <CopyButton value={id}>
        {({ copied, copy }) => (
          <Button size="compact-xs" variant="subtle" onClick={copy} aria-label={`Copy id ${id}`}>
            {copied ? "Copied" : "Copy id"}
          </Button>
        )}
      </CopyButton>
    </Group>
  );
}

export function ListsPage() {
  const client = useQueryClient();
  const [name, setName] = useState("");
  const lists = useInfiniteQuery({
    queryKey: ["lists", "pages"],
    queryFn: ({ pageParam }) =>
      api<Page<ListJson>>("GET", `/lists?limit=100${pageParam ? `&cursor=${pageParam}` : ""}`),
    initialPageParam: "",
    getNextPageParam: (last) => (last.hasMore ? (last.nextCursor ?? undefined) : undefined),
  });
  const create = useMutation({
    mutationFn: () => api<ListJson>("POST", "/lists", { name: name.trim() }),
    onSuccess: (list) => {
      setName("");
      notify(`List "${list.name}" created`);
      void client.invalidateQueries({ queryKey: ["lists"] });
    },
  });
  const rows = lists.data?.pages.flatMap((p) => p.data) ?? [];

  return (
    <Stack gap="md">
      <Title order={1} size="h2">
        Lists
      </Title>
      <Paper withBorder p="sm" radius="md">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (name.trim()) create.mutate();
          }}
          noValidate
        >
          <Group align="flex-start" gap="xs">
            <TextInput
              label="List name"
              placeholder="For example Newsletter"
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              error={create.isError ? errorMessage(create.error) : undefined}
              style={{ flex: 1 }}
              maxLength={200}
            />
            <Button type="submit" mt={25} loading={create.isPending} disabled={!name.trim()}>
              Create list
            </Button>
          </Group>
        </form>
      </Paper>
      {lists.isPending && <LoadingState label="Loading lists" />}
      {lists.isError && <ErrorState error={lists.error} onRetry={() => void lists.refetch()} />}
      {lists.data && rows.length === 0 && (
        <EmptyState title="No lists yet">
          Group contacts in lists, for example to message them all later.
        </EmptyState>
      )}
      {rows.length > 0 && (
        <Table.ScrollContainer minWidth={600}>
          <Table striped aria-label="Lists">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Members</Table.Th>
                <Table.Th>List id</Table.Th>
                <Table.Th>Created</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((l) => (
                <Table.Tr key={l.id}>
                  <Table.Td>
                    <Anchor component={Link} to={`/lists/${l.id}`}>
                      {l.name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>{l.memberCount}</Table.Td>
                  <Table.Td>
                    <ListId id={l.id} />
                  </Table.Td>
                  <Table.Td>{fullTime(l.createdAt)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {lists.hasNextPage && (
        <Button
          variant="subtle"
          loading={lists.isFetchingNextPage}
          onClick={() => void lists.fetchNextPage()}
        >
          Load more
        </Button>
      )}
    </Stack>
  );
}
