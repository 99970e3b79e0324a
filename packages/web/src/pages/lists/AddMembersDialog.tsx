// A list's "Add members": several contacts picked with a search, added in one call.
import { Button, MultiSelect } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useState } from "react";
import { FormModal } from "../../components/FormModal.tsx";
import { contactName } from "../../lib/format.ts";
import { useContactPicker } from "../../lib/queries/contacts.ts";
import { useAddListMembers } from "../../lib/queries/lists.ts";

export function AddMembersButton({ listId }: { listId: string }) {
  const [opened, setOpened] = useState(false);
  const [search, setSearch] = useState("");
  const [debounced] = useDebouncedValue(search, 250);
  // The names of the picked contacts, kept while the search shows other ones.
  const [picked, setPicked] = useState<Map<string, string>>(new Map());
  const candidates = useContactPicker(debounced);
  const add = useAddListMembers();
  const close = () => {
    setOpened(false);
    setPicked(new Map());
    setSearch("");
  };
  const options = new Map(picked);
  for (const c of candidates.data?.data ?? []) {
    const detail = c.phone ? ` · ${c.phone}` : c.email ? ` · ${c.email}` : "";
    options.set(c.id, `${contactName(c)}${detail}`);
  }
  const n = picked.size;

  return (
    <>
      <Button variant="default" onClick={() => setOpened(true)}>
        Add members
      </Button>
      <FormModal
        opened={opened}
        onClose={close}
        title="Add members"
        submitLabel={n > 1 ? `Add ${n} contacts` : "Add contact"}
        submitDisabled={n === 0}
        loading={add.isPending}
        onSubmit={() => add.mutate({ listId, contactIds: [...picked.keys()] }, { onSuccess: close })}
      >
        <MultiSelect
          label="Contacts to add"
          placeholder="Type a name, phone or email"
          searchable
          searchValue={search}
          onSearchChange={setSearch}
          filter={({ options: shown }) => shown}
          data={[...options].map(([value, label]) => ({ value, label }))}
          value={[...picked.keys()]}
          onChange={(ids) => setPicked(new Map(ids.map((id) => [id, options.get(id) ?? id])))}
          nothingFoundMessage="No contact matches"
          maxValues={500}
          data-autofocus
        />
      </FormModal>
    </>
  );
}
