import {
  Alert,
  Button,
  Group,
  NumberInput,
  type NumberInputProps,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
} from "@mantine/core";
import { useForm } from "@mantine/form";
import { useState } from "react";
import { FormModal } from "../../components/FormModal.tsx";
import { LinkCell } from "../../components/LinkCell.tsx";
import { PagedTable } from "../../components/PagedTable.tsx";
import { PageHeader } from "../../components/PageHeader.tsx";
import { EmptyState } from "../../components/States.tsx";
import type { Session, Subaccount } from "../../lib/api-types.ts";
import { credits, fullTime } from "../../lib/format.ts";
import { useCreateSubaccount, useSubaccounts } from "../../lib/queries/agency.ts";
import { useDocumentTitle } from "../../lib/useDocumentTitle.ts";
import { AssistButton } from "./AssistButton.tsx";
import { ClientRowActions, ClientStatus } from "./ClientActions.tsx";

export function AgencyPage({ session }: { session: Session }) {
  useDocumentTitle("Sub-accounts");
  const [creating, setCreating] = useState(false);
  const form = useForm({ initialValues: { name: "", email: "" } });
  // The new sub-account owner's link, shown once: the agency hands it to its client.
  const [ownerLink, setOwnerLink] = useState<{ name: string; url: string } | null>(null);
  const subs = useSubaccounts(session.account.kind === "agency");
  const create = useCreateSubaccount();
  if (session.account.kind !== "agency") {
    return <EmptyState title="Only agency accounts have sub-accounts" />;
  }
  return (
    <Stack gap="md">
      <PageHeader title="Agency">
        <Button onClick={() => setCreating(true)}>New sub-account</Button>
      </PageHeader>
      {ownerLink && (
        <Alert
          color="blue"
          title={`Invite link for ${ownerLink.name}`}
          withCloseButton
          closeButtonLabel="Dismiss the link"
          onClose={() => setOwnerLink(null)}
        >
          <Stack gap="xs">
            <Text size="sm">
              Send this link to your client: it is shown only now and is valid for 7 days. They choose a
              password there and sign in to their account.
            </Text>
            <Text size="sm" ff="monospace" style={{ wordBreak: "break-all" }} data-testid="owner-invite-link">
              {ownerLink.url}
            </Text>
          </Stack>
        </Alert>
      )}
      <PagedTable
        query={subs}
        rows={subs.data?.data}
        loadingLabel="Loading sub-accounts"
        empty={
          <EmptyState title="No sub-accounts yet">
            Create one for each client you resell Parley to.
          </EmptyState>
        }
        label="Sub-accounts"
        columns={["Name", "Email", "Status", "Credits", "Auto-recharge", "Actions"]}
        minWidth={820}
        cells={(s) => (
          <>
            <LinkCell to={`/agency/${s.id}`}>{s.name}</LinkCell>
            <Table.Td>{s.email}</Table.Td>
            <Table.Td>
              <ClientStatus sub={s} />
            </Table.Td>
            <Table.Td>{credits(s.credits)}</Table.Td>
            <Table.Td>
              {s.autoRecharge
                ? `${credits(s.autoRecharge.rechargeAmount)} below ${credits(s.autoRecharge.threshold)}`
                : "Off"}
            </Table.Td>
            <Table.Td>
              <Group gap="xs" wrap="nowrap">
                <AssistButton sub={s} />
                <ClientRowActions sub={s} />
              </Group>
            </Table.Td>
          </>
        )}
      />
      <FormModal
        opened={creating}
        onClose={() => setCreating(false)}
        title="New sub-account"
        submitLabel="Create sub-account"
        submitDisabled={!form.values.email.trim()}
        loading={create.isPending}
        error={create.error}
        onSubmit={() => {
          const { name, email } = form.values;
          create.mutate(
            { email: email.trim(), ...(name.trim() ? { name: name.trim() } : {}) },
            {
              onSuccess: (s) => {
                setCreating(false);
                setOwnerLink({ name: s.name, url: s.ownerInvite.url });
                form.reset();
              },
            },
          );
        }}
      >
        <TextInput label="Client name" {...form.getInputProps("name")} />
        <TextInput label="Client email" type="email" required {...form.getInputProps("email")} />
        <Text size="sm" c="dimmed">
          Your client gets a link to choose their own password and sign in to the web app.
        </Text>
      </FormModal>
    </Stack>
  );
}

/** A credits amount: not negative, up to two decimals. */
export function NumberField(props: NumberInputProps) {
  return <NumberInput min={0} decimalScale={2} hideControls w={160} {...props} />;
}

export function SubaccountSummary({ sub }: { sub: Subaccount }) {
  return (
    <Paper withBorder p="md" radius="md">
      <Group gap="xl">
        <div>
          <Text size="xs" c="dimmed">
            Balance
          </Text>
          <Text size="xl" fw={700} aria-label="Balance">
            {credits(sub.credits)} credits
          </Text>
        </div>
        <div>
          <Text size="xs" c="dimmed">
            Email
          </Text>
          <Text>{sub.email}</Text>
        </div>
        <div>
          <Text size="xs" c="dimmed">
            Since
          </Text>
          <Text>{fullTime(sub.createdAt)}</Text>
        </div>
      </Group>
    </Paper>
  );
}
