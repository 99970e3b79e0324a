// A client row's status and its actions on the agency page: Suspend (after a confirmation), Resume and
// Rename. Kept apart from AgencyPage so the page's other row actions can sit beside these.
import { Badge, Button, Group, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useState } from "react";
import { ConfirmModal, FormModal } from "../../components/FormModal.tsx";
import { ErrorAlert } from "../../components/States.tsx";
import type { Subaccount } from "../../lib/api-types.ts";
import { useRenameSubaccount, useSetSuspended } from "../../lib/queries/agency.ts";

export function ClientStatus({ sub }: { sub: Subaccount }) {
  return sub.status === "suspended" ? (
    <Badge color="red" variant="light">
      Suspended
    </Badge>
  ) : (
    <Badge color="green" variant="light">
      Active
    </Badge>
  );
}

export function ClientRowActions({ sub }: { sub: Subaccount }) {
  const [dialog, setDialog] = useState<"suspend" | "rename" | null>(null);
  const suspension = useSetSuspended(sub.id);
  const close = () => setDialog(null);
  return (
    <Group gap="xs" wrap="nowrap">
      {sub.status === "suspended" ? (
        <Button
          size="xs"
          variant="light"
          loading={suspension.isPending}
          onClick={() => suspension.mutate(false)}
        >
          Resume
        </Button>
      ) : (
        <Button size="xs" variant="default" onClick={() => setDialog("suspend")}>
          Suspend
        </Button>
      )}
      <Button size="xs" variant="default" onClick={() => setDialog("rename")}>
        Rename
      </Button>
      {sub.status === "suspended" && <ErrorAlert error={suspension.error} />}
      {dialog === "suspend" && (
        <ConfirmModal
          onClose={close}
          title={`Suspend ${sub.name}?`}
          confirmLabel="Suspend"
          action={suspension}
          onConfirm={() => suspension.mutate(true, { onSuccess: close })}
        >
          Its API key and its people's sign-ins stop working and its bot stops answering; campaigns and
          follow-ups wait. Messages from its channels (website chat, WhatsApp, …) are still received and
          nothing is deleted. Resume it at any time.
        </ConfirmModal>
      )}
      {dialog === "rename" && <RenameDialog sub={sub} onClose={close} />}
    </Group>
  );
}

function RenameDialog({ sub, onClose }: { sub: Subaccount; onClose: () => void }) {
  const form = useForm({ initialValues: { name: sub.name } });
  const name = form.values.name.trim();
  const rename = useRenameSubaccount(sub.id);
  return (
    <FormModal
      opened
      onClose={onClose}
      title={`Rename ${sub.name}`}
      submitLabel="Save"
      submitDisabled={!name}
      loading={rename.isPending}
      error={rename.error}
      onSubmit={() => rename.mutate(name, { onSuccess: onClose })}
    >
      <TextInput label="Name" required maxLength={200} {...form.getInputProps("name")} data-autofocus />
    </FormModal>
  );
}
