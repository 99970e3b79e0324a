import { Anchor, Badge, Button, Group, Modal, Stack, Table, TextInput } from "@mantine/core";
import { useField } from "@mantine/form";
import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { PagedTable } from "../../components/PagedTable.tsx";
import { PageHeader } from "../../components/PageHeader.tsx";
import { EmptyState } from "../../components/States.tsx";
import { errorMessage } from "../../lib/api.ts";
import type { Session } from "../../lib/api-types.ts";
import { useCampaigns, useCreateCampaign } from "../../lib/queries/campaigns.ts";
import { canManage } from "../../lib/session.ts";
import { useDocumentTitle } from "../../lib/useDocumentTitle.ts";

export const STATUS_COLOR = { live: "green", draft: "gray", paused: "yellow" } as const;

export function CampaignsPage({ session }: { session: Session }) {
  useDocumentTitle("Campaigns");
  const navigate = useNavigate();
  const [creating, setCreating] = useState(false);
  const nameField = useField({ initialValue: "" });
  const name = nameField.getValue();
  const campaigns = useCampaigns();
  const create = useCreateCampaign();

  return (
    <Stack gap="md">
      <PageHeader title="Campaigns">
        {canManage(session) && <Button onClick={() => setCreating(true)}>New campaign</Button>}
      </PageHeader>
      <PagedTable
        query={campaigns}
        rows={campaigns.data?.data}
        loadingLabel="Loading campaigns"
        empty={
          <EmptyState title="No campaigns">
            A campaign holds what the bot knows and how it answers.
          </EmptyState>
        }
        label="Campaigns"
        columns={["Name", "Status", "Knowledge entries", "Keywords", "Engine"]}
        minWidth={560}
        cells={(c) => (
          <>
            <Table.Td>
              <Group gap={6}>
                <Anchor component={Link} to={`/campaigns/${c.id}`}>
                  {c.name}
                </Anchor>
                {c.isDefault && (
                  <Badge size="sm" variant="outline">
                    Default
                  </Badge>
                )}
              </Group>
            </Table.Td>
            <Table.Td>
              <Badge size="sm" variant="light" color={STATUS_COLOR[c.status]}>
                {c.status}
              </Badge>
            </Table.Td>
            <Table.Td>{c.knowledgeCount}</Table.Td>
            <Table.Td>{c.keywords.join(", ") || "—"}</Table.Td>
            <Table.Td>{c.engine}</Table.Td>
          </>
        )}
      />
      <Modal
        opened={creating}
        onClose={() => setCreating(false)}
        title="New campaign"
        closeButtonProps={{ "aria-label": "Close" }}
      >
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (name.trim())
              create.mutate(name.trim(), {
                onSuccess: (c) => {
                  setCreating(false);
                  nameField.reset();
                  navigate(`/campaigns/${c.id}`);
                },
              });
          }}
          noValidate
        >
          <Stack gap="sm">
            <TextInput
              label="Campaign name"
              {...nameField.getInputProps()}
              error={create.isError ? errorMessage(create.error) : undefined}
              maxLength={200}
              data-autofocus
            />
            <Group justify="flex-end">
              <Button type="submit" loading={create.isPending} disabled={!name.trim()}>
                Create campaign
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </Stack>
  );
}
