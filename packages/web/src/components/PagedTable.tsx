import { Button, Checkbox, Table } from "@mantine/core";
import type { ReactNode } from "react";
import { type Column, DataTable } from "./DataTable.tsx";
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

/** Optional row selection (bulk actions): a checkbox per row and one for every row shown. */
export interface TableSelection<Row> {
  selected: ReadonlySet<string>;
  onChange: (next: Set<string>) => void;
  /** The row as named in its checkbox: "Select <name>". */
  rowName: (row: Row) => string;
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
  selection?: TableSelection<Row>;
}) {
  const { query, rows, selection } = props;
  const shown = rows ?? [];
  const selectedShown = selection ? shown.filter((r) => selection.selected.has(r.id)).length : 0;
  const toggle = (id: string, on: boolean) => {
    if (!selection) return;
    const next = new Set(selection.selected);
    if (on) next.add(id);
    else next.delete(id);
    selection.onChange(next);
  };
  const selectAll: Column = {
    key: "select-all",
    w: 40,
    label: selection && (
      <Checkbox
        aria-label="Select all on this page"
        checked={selectedShown > 0 && selectedShown === shown.length}
        indeterminate={selectedShown > 0 && selectedShown < shown.length}
        onChange={(e) =>
          selection.onChange(e.currentTarget.checked ? new Set(shown.map((r) => r.id)) : new Set())
        }
      />
    ),
  };
  return (
    <>
      {query.isPending && <LoadingState label={props.loadingLabel} />}
      {query.isError && <ErrorState error={query.error} onRetry={() => void query.refetch()} />}
      {rows && rows.length === 0 && props.empty}
      {rows && rows.length > 0 && (
        <Table.ScrollContainer minWidth={props.minWidth}>
          <DataTable
            striped
            highlightOnHover={props.highlightOnHover}
            aria-label={props.label}
            columns={selection ? [selectAll, ...props.columns] : props.columns}
            rows={rows}
            rowKey={(row) => row.id}
            cells={(row) => (
              <>
                {selection && (
                  <Table.Td>
                    <Checkbox
                      aria-label={`Select ${selection.rowName(row)}`}
                      checked={selection.selected.has(row.id)}
                      onChange={(e) => toggle(row.id, e.currentTarget.checked)}
                    />
                  </Table.Td>
                )}
                {props.cells(row)}
              </>
            )}
          />
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
