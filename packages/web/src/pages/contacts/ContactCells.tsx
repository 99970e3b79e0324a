// A contact's first columns in a table (the contacts page, a list's members): its name as a link to
// its page, then its phone and email.
import { Anchor, Table } from "@mantine/core";
import { Link } from "react-router";

export function ContactCells({
  contact,
  name,
}: {
  contact: { id: string; phone: string | null; email: string | null };
  /** The name as the table shows it. */
  name: string;
}) {
  return (
    <>
      <Table.Td>
        <Anchor component={Link} to={`/contacts/${contact.id}`}>
          {name}
        </Anchor>
      </Table.Td>
      <Table.Td>{contact.phone ?? "—"}</Table.Td>
      <Table.Td>{contact.email ?? "—"}</Table.Td>
    </>
  );
}
