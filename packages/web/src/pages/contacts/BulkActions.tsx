// The contacts page's bulk toolbar: what to do with the selected contacts (add to a list, add a label,
// delete), each through one call, a dialog asking for what it needs (delete asks to confirm).
import { Button, Text } from "@mantine/core";
import { useState } from "react";
import { BulkLabelDialog, BulkToolbar } from "../../components/BulkToolbar.tsx";
import { FormModal } from "../../components/FormModal.tsx";
import { useBulkContacts } from "../../lib/queries/contacts.ts";
import { useAddListMembers } from "../../lib/queries/lists.ts";
import { ListSelect } from "../lists/ListSelect.tsx";

type Dialog = "list" | "label" | "delete" | null;

export function ContactBulkActions(props: { ids: string[]; onClear: () => void; onDeleted: () => void }) {
  const { ids } = props;
  const [dialog, setDialog] = useState<Dialog>(null);
  const [listId, setListId] = useState<string | null>(null);
  const bulk = useBulkContacts();
  const addMembers = useAddListMembers();
  const close = () => setDialog(null);
  const count = `${ids.length} ${ids.length === 1 ? "contact" : "contacts"}`;
  if (ids.length === 0) return null;

  return (
    <BulkToolbar
      count={count}
      onClear={props.onClear}
      actions={
        <>
          <Button size="xs" variant="default" onClick={() => setDialog("list")}>
            Add to list
          </Button>
          <Button size="xs" variant="default" onClick={() => setDialog("label")}>
            Add label
          </Button>
          <Button size="xs" variant="light" color="red" onClick={() => setDialog("delete")}>
            Delete selected
          </Button>
        </>
      }
    >
      <FormModal
        opened={dialog === "list"}
        onClose={close}
        title={`Add ${count} to a list`}
        submitLabel="Add contacts"
        submitDisabled={!listId}
        loading={addMembers.isPending}
        onSubmit={() => listId && addMembers.mutate({ listId, contactIds: ids }, { onSuccess: close })}
      >
        <ListSelect
          label="List"
          placeholder="Choose a list"
          value={listId}
          onChange={setListId}
          nothingFoundMessage="No lists yet: create one on the Lists page"
          searchable
        />
      </FormModal>

      <BulkLabelDialog
        opened={dialog === "label"}
        onClose={close}
        title={`Add a label to ${count}`}
        loading={bulk.isPending}
        apply={(label, done) =>
          bulk.mutate(
            { ids, action: "label", label },
            {
              onSuccess: () => {
                done();
                close();
              },
            },
          )
        }
      />

      <FormModal
        opened={dialog === "delete"}
        onClose={close}
        title={`Delete ${count}?`}
        submitLabel="Delete contacts"
        danger
        loading={bulk.isPending}
        onSubmit={() =>
          bulk.mutate(
            { ids, action: "delete" },
            {
              onSuccess: () => {
                close();
                props.onDeleted();
              },
            },
          )
        }
      >
        <Text size="sm">
          Each contact goes with its conversations, messages and list memberships, for good.
        </Text>
      </FormModal>
    </BulkToolbar>
  );
}
