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
import { useState } from "react";
import { Link } from "react-router";
import { PagedTable } from "../../components/PagedTable.tsx";
import { EmptyState } from "../../components/States.tsx";
import { errorMessage } from "../../lib/api.ts";
import { fullTime } from "../../lib/format.ts";
import { useCreateList, useListPages } from "../../lib/queries/lists.ts";
import { useDocumentTitle } from "../../lib/useDocumentTitle.ts";

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
  useDocumentTitle("Lists");
  const [name, setName] = useState("");
  const lists = useListPages();
  const create = useCreateList();
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
            if (name.trim()) create.mutate(name.trim(), { onSuccess: () => setName("") });
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
      <PagedTable
        query={lists}
        rows={lists.data ? rows : undefined}
        loadingLabel="Loading lists"
        empty={
          <EmptyState title="No lists yet">
            Group contacts in lists, for example to message them all later.
          </EmptyState>
        }
        label="Lists"
        columns={["Name", "Members", "List id", "Created"]}
        minWidth={600}
        cells={(l) => (
          <>
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
          </>
        )}
      />
    </Stack>
  );
}
