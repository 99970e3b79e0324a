import { Button, Code, CopyButton, Group, Paper, Stack, Table } from "@mantine/core";
import { LinkCell } from "../../components/LinkCell.tsx";
import { NameForm } from "../../components/NameForm.tsx";
import { PagedTable } from "../../components/PagedTable.tsx";
import { PageHeader } from "../../components/PageHeader.tsx";
import { EmptyState } from "../../components/States.tsx";
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
  const lists = useListPages();
  const create = useCreateList();
  const rows = lists.data?.pages.flatMap((p) => p.data) ?? [];

  return (
    <Stack gap="md">
      <PageHeader title="Lists" />
      <Paper withBorder p="sm" radius="md">
        <NameForm
          label="List name"
          placeholder="For example Newsletter"
          submitLabel="Create list"
          onSubmit={(name, reset) => create.mutate(name, { onSuccess: reset })}
          pending={create.isPending}
          error={create.error}
          requireName
        />
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
            <LinkCell to={`/lists/${l.id}`}>{l.name}</LinkCell>
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
