// A contact's first columns in a table (the contacts page, a list's members): its name as a link to
// its page, then its phone and email.
import { Table } from "@mantine/core";
import { LinkCell } from "../../components/LinkCell.tsx";

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
      <LinkCell to={`/contacts/${contact.id}`}>{name}</LinkCell>
      <Table.Td>{contact.phone ?? "—"}</Table.Td>
      <Table.Td>{contact.email ?? "—"}</Table.Td>
    </>
  );
}
