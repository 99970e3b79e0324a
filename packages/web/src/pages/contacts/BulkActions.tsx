// The contacts page's bulk toolbar: what to do with the selected contacts (add to a list, add a label,
// delete), each through one call, a dialog asking for what it needs (delete asks to confirm).
import { Button, Group, Modal, Select, Stack, Text, TextInput } from "@mantine/core";
import { useState } from "react";
import { BulkToolbar } from "../../components/BulkToolbar.tsx";
import { useBulkContacts } from "../../lib/queries/contacts.ts";
import { useAddListMembers, useListChoices } from "../../lib/queries/lists.ts";

type Dialog = "list" | "label" | "delete" | null;

export function ContactBulkActions(props: { ids: string[]; onClear: () => void; onDeleted: () => void }) {
  const { ids } = props;
  const [dialog, setDialog] = useState<Dialog>(null);
  const [listId, setListId] = useState<string | null>(null);
  const [label, setLabel] = useState("");
  const lists = useListChoices(dialog === "list");
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
      <Modal
        opened={dialog === "list"}
        onClose={close}
        title={`Add ${count} to a list`}
        closeButtonProps={{ "aria-label": "Close" }}
      >
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (listId) addMembers.mutate({ listId, contactIds: ids }, { onSuccess: close });
          }}
        >
          <Stack gap="sm">
            <Select
              label="List"
              placeholder="Choose a list"
              data={(lists.data?.data ?? []).map((l) => ({ value: l.id, label: l.name }))}
              value={listId}
              onChange={setListId}
              nothingFoundMessage="No lists yet: create one on the Lists page"
              searchable
            />
            <Group justify="flex-end" gap="xs">
              <Button variant="default" onClick={close}>
                Cancel
              </Button>
              <Button type="submit" disabled={!listId} loading={addMembers.isPending}>
                Add contacts
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>

      <Modal
        opened={dialog === "label"}
        onClose={close}
        title={`Add a label to ${count}`}
        closeButtonProps={{ "aria-label": "Close" }}
      >
        <form
          onSubmit={(e) => {
            e.preventDefault();
            bulk.mutate(
              { ids, action: "label", label: label.trim() },
              {
                onSuccess: () => {
                  setLabel("");
                  close();
                },
              },
            );
          }}
        >
          <Stack gap="sm">
            <TextInput
              label="Label"
              placeholder="For example vip"
              value={label}
              onChange={(e) => setLabel(e.currentTarget.value)}
              maxLength={50}
              data-autofocus
            />
            <Group justify="flex-end" gap="xs">
              <Button variant="default" onClick={close}>
                Cancel
              </Button>
              <Button type="submit" disabled={!label.trim()} loading={bulk.isPending}>
                Apply label
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>

      <Modal
        opened={dialog === "delete"}
        onClose={close}
        title={`Delete ${count}?`}
        closeButtonProps={{ "aria-label": "Close" }}
      >
        <Stack gap="sm">
          <Text size="sm">
            Each contact goes with its conversations, messages and list memberships, for good.
          </Text>
          <Group justify="flex-end" gap="xs">
            <Button variant="default" onClick={close} data-autofocus>
              Cancel
            </Button>
            <Button
              color="red"
              loading={bulk.isPending}
              onClick={() =>
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
              Delete contacts
            </Button>
          </Group>
        </Stack>
      </Modal>
    </BulkToolbar>
  );
}
