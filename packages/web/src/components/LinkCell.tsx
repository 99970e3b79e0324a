// A table cell whose text links to the row's own page (a contact's, a list's, a sub-account's).
import { Anchor, Table } from "@mantine/core";
import type { ReactNode } from "react";
import { Link } from "react-router";

export function LinkCell({ to, children }: { to: string; children: ReactNode }) {
  return (
    <Table.Td>
      <Anchor component={Link} to={to}>
        {children}
      </Anchor>
    </Table.Td>
  );
}
