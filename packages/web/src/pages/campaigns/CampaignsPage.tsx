import { Anchor, Badge, Button, Group, Modal, Stack, Table, TextInput, Title } from "@mantine/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { EmptyState, ErrorState, LoadingState } from "../../components/States.tsx";
import { api, errorMessage } from "../../lib/api.ts";
import { canManage } from "../../lib/session.ts";
import type { Campaign, CampaignSummary, Page, Session } from "../../lib/types.ts";

export const STATUS_COLOR = { live: "green", draft: "gray", paused: "yellow" } as const;

export function CampaignsPage({ session }: { session: Session }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const [creating, setCreating] = useState(false);
  const [name, setName] = useState("");
  const campaigns = useQuery({
    queryKey: ["campaigns"],
    queryFn: () => api<Page<CampaignSummary>>("GET", "/campaigns?limit=200"),
  });
  const create = useMutation({
    mutationFn: () => api<Campaign>("POST", "/campaigns", { name: name.trim() }),
    onSuccess: (c) => {
      void client.invalidateQueries({ queryKey: ["campaigns"] });
      setCreating(false);
      setName("");
      navigate(`/campaigns/${c.id}`);
    },
  });

  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={1} size="h2">
          Campaigns
        </Title>
        {canManage(session) && <Button onClick={() => setCreating(true)}>New campaign</Button>}
      </Group>
      {campaigns.isPending && <LoadingState label="Loading campaigns" />}
      {campaigns.isError && <ErrorState error={campaigns.error} onRetry={() => void campaigns.refetch()} />}
      {campaigns.data && campaigns.data.data.length === 0 && (
        <EmptyState title="No campaigns">A campaign holds what the bot knows and how it answers.</EmptyState>
      )}
      {campaigns.data && campaigns.data.data.length > 0 && (
        <Table.ScrollContainer minWidth={560}>
          <Table striped aria-label="Campaigns">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Knowledge entries</Table.Th>
                <Table.Th>Keywords</Table.Th>
                <Table.Th>Engine</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {campaigns.data.data.map((c) => (
                <Table.Tr key={c.id}>
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
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Modal
        opened={creating}
        onClose={() => setCreating(false)}
        title="New campaign"
        closeButtonProps={{ "aria-label": "Close" }}
      >
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (name.trim()) create.mutate();
          }}
          noValidate
        >
          <Stack gap="sm">
            <TextInput
              label="Campaign name"
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
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
