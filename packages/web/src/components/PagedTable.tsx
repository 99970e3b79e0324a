import { Button, Table } from "@mantine/core";
import type { ReactNode } from "react";
import { ErrorState, LoadingState } from "./States.tsx";

/** What the table needs of a query (useQuery or useInfiniteQuery): its state, and more pages if any. */
interface TableQuery {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  refetch: () => unknown;
  hasNextPage?: boolean;
  isFetchingNextPage?: boolean;
  fetchNextPage?: () => unknown;
}

/**
 * The list pages' table (contacts, lists, campaigns, sub-accounts): loading, a failure with "Try again",
 * `empty` when there are no rows, the rows, and "Load more" while the server has more pages.
 */
export function PagedTable<Row extends { id: string }>(props: {
  query: TableQuery;
  /** undefined until the first answer. */
  rows: Row[] | undefined;
  loadingLabel: string;
  empty: ReactNode;
  /** The table's accessible name. */
  label: string;
  columns: string[];
  minWidth: number;
  highlightOnHover?: boolean;
  /** The row's cells. */
  cells: (row: Row) => ReactNode;
}) {
  const { query, rows } = props;
  return (
    <>
      {query.isPending && <LoadingState label={props.loadingLabel} />}
      {query.isError && <ErrorState error={query.error} onRetry={() => void query.refetch()} />}
      {rows && rows.length === 0 && props.empty}
      {rows && rows.length > 0 && (
        <Table.ScrollContainer minWidth={props.minWidth}>
          <Table striped highlightOnHover={props.highlightOnHover} aria-label={props.label}>
            <Table.Thead>
              <Table.Tr>
                {props.columns.map((column) => (
                  <Table.Th key={column}>{column}</Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((row) => (
                <Table.Tr key={row.id}>{props.cells(row)}</Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {query.hasNextPage && (
        <Button
          variant="subtle"
          loading={query.isFetchingNextPage}
          onClick={() => void query.fetchNextPage?.()}
        >
          Load more
        </Button>
      )}
    </>
  );
}
