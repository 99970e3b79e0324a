// A table of rows: a header row of column names, then one row per item with the cells it draws.
// PagedTable adds the loading, empty and "Load more" states around it.
import { Table, type TableProps, VisuallyHidden } from "@mantine/core";
import type { ReactNode } from "react";

/** A column's header: its name, or its header cell's content with the column's alignment and width. */
export type Column = string | { key: string; label: ReactNode; ta?: "right"; w?: number };

export function DataTable<Row>({
  columns,
  rows,
  rowKey,
  cells,
  ...table
}: {
  columns: Column[];
  rows: Row[];
  rowKey: (row: Row, index: number) => string | number;
  /** The row's cells (Table.Td, or Table.Th for a row header). */
  cells: (row: Row, index: number) => ReactNode;
} & Omit<TableProps, "children">) {
  return (
    <Table {...table}>
      <Table.Thead>
        <Table.Tr>
          {columns.map((column) =>
            typeof column === "string" ? (
              <Table.Th key={column}>{column}</Table.Th>
            ) : (
              <Table.Th key={column.key} ta={column.ta} w={column.w}>
                {column.label}
              </Table.Th>
            ),
          )}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((row, index) => (
          <Table.Tr key={rowKey(row, index)}>{cells(row, index)}</Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** A right-aligned column (numbers). */
export function numeric(label: string): Column {
  return { key: label, label, ta: "right" };
}

/** The column of a row's buttons: its header is named for screen readers only. */
export const ACTIONS_COLUMN: Column = { key: "actions", label: <VisuallyHidden>Actions</VisuallyHidden> };
