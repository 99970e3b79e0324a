// Settings → Channels: the account's built-in channels (the website chat and the provider channels), with
// their status and last error; owners and admins add, edit, pause, resume and delete them, agents only look.
import { Alert, Anchor, Badge, Button, Group, Stack, Table, Text, Title } from "@mantine/core";
import { useState } from "react";
import { Link } from "react-router";
import { ChannelIcon } from "../../components/ChannelIcon.tsx";
import { ACTIONS_COLUMN, DataTable } from "../../components/DataTable.tsx";
import { ConfirmModal } from "../../components/FormModal.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../components/States.tsx";
import type { Channel, Session } from "../../lib/api-types.ts";
import type { WebChannelConfig } from "../../lib/channels.ts";
import { CHANNEL_TYPE_LABELS, isProvider, PROVIDER_FIELDS } from "../../lib/channels.ts";
import { fullTime } from "../../lib/format.ts";
import { useCampaignChoices } from "../../lib/queries/campaigns.ts";
import { useChannels, useDeleteChannel, useToggleChannel } from "../../lib/queries/channels.ts";
import { canManage } from "../../lib/session.ts";
import { useDocumentTitle } from "../../lib/useDocumentTitle.ts";
import { SettingsNav } from "../settings/SettingsNav.tsx";
import { AddChannelDialog, EditChannelDialog } from "./ChannelDialog.tsx";

const STATUS: Record<Channel["status"], { label: string; color: string }> = {
  active: { label: "Active", color: "green" },
  paused: { label: "Paused", color: "gray" },
  error: { label: "Error", color: "red" },
};

export function ChannelsPage({ session }: { session: Session }) {
  useDocumentTitle("Channels");
  const manager = canManage(session);
  const channels = useChannels();
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<Channel | null>(null);
  const [deleting, setDeleting] = useState<Channel | null>(null);
  const list = channels.data?.data ?? [];
  const broken = list.filter((ch) => ch.status === "error");
  const campaigns = useCampaignChoices();
  const campaignName = (id: string) => campaigns.data?.data.find((c) => c.id === id)?.name ?? id;

  return (
    <Stack maw={960} gap="lg">
      <Title order={1} size="h2">
        Settings
      </Title>
      {manager && <SettingsNav />}
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={2} size="h3">
            Channels
          </Title>
          <Text size="sm" c="dimmed" maw={620}>
            Where your customers reach you besides your own integration (the custom channel). Each channel's
            conversations arrive in the inbox, answered by its campaign's bot and your team.
          </Text>
        </div>
        {manager && <Button onClick={() => setAdding(true)}>Add channel</Button>}
      </Group>
      {!manager && (
        <Alert color="gray" role="note">
          Only owners and admins of {session.account.name} can add or change channels.
        </Alert>
      )}
      {channels.isPending && <LoadingState label="Loading the channels" />}
      {channels.isError && <ErrorState error={channels.error} onRetry={() => void channels.refetch()} />}
      {channels.data && list.length === 0 && (
        <EmptyState title="No channels yet">
          {manager
            ? "Add a website chat, or connect WhatsApp, Telegram, SMS (Twilio), Messenger or Instagram: their messages arrive here in the inbox. Messages from your own integration keep arriving as before."
            : "No channel has been added yet. Messages from your business's own integration arrive in the inbox as before."}
        </EmptyState>
      )}
      {broken.length > 0 && (
        <Alert color="red" title="Needs attention">
          {broken.length === 1
            ? `${broken[0]!.name} is in error: its error is shown in the list below.`
            : `${broken.map((ch) => ch.name).join(", ")} are in error: their errors are shown in the list below.`}{" "}
          {manager
            ? "Fix the settings with Edit, then Resume."
            : "An owner or admin of the account can fix the settings."}
        </Alert>
      )}
      {list.length > 0 && (
        <Table.ScrollContainer minWidth={640}>
          <DataTable
            verticalSpacing="sm"
            aria-label="Channels"
            columns={["Channel", "Status", "Details", ...(manager ? [ACTIONS_COLUMN] : [])]}
            rows={list}
            rowKey={(ch) => ch.id}
            cells={(ch) => (
              <ChannelCells
                channel={ch}
                manager={manager}
                campaignName={campaignName}
                onEdit={() => setEditing(ch)}
                onDelete={() => setDeleting(ch)}
              />
            )}
          />
        </Table.ScrollContainer>
      )}
      {adding && <AddChannelDialog onClose={() => setAdding(false)} />}
      {editing && <EditChannelDialog channel={editing} onClose={() => setEditing(null)} />}
      {deleting && <DeleteChannelDialog channel={deleting} onClose={() => setDeleting(null)} />}
    </Stack>
  );
}

/** A channel's cells in the table: what it is, its state, its settings, and (for managers) its actions. */
function ChannelCells({
  channel: ch,
  manager,
  campaignName,
  onEdit,
  onDelete,
}: {
  channel: Channel;
  manager: boolean;
  campaignName: (id: string) => string;
  onEdit: () => void;
  onDelete: () => void;
}) {
  const status = STATUS[ch.status];
  const toggle = useToggleChannel(ch);
  const web = ch.type === "web" ? (ch.config as Partial<WebChannelConfig>) : null;
  // A provider's settings as saved: the secrets come masked ("••••" and the last 4 characters).
  const settings = isProvider(ch.type)
    ? PROVIDER_FIELDS[ch.type].flatMap((f) => {
        const value = ch.config[f.key];
        return typeof value === "string" && value ? [{ label: f.label, value }] : [];
      })
    : [];
  return (
    <>
      <Table.Td>
        <Group gap="xs" wrap="nowrap">
          <ChannelIcon kind={ch.type} size={20} />
          <div>
            <Text size="sm" fw={600}>
              {ch.name}
            </Text>
            <Text size="xs" c="dimmed">
              {CHANNEL_TYPE_LABELS[ch.type]} · {ch.id}
            </Text>
          </div>
        </Group>
      </Table.Td>
      <Table.Td style={{ minWidth: 96 }}>
        <Badge variant="light" color={status.color} style={{ overflow: "visible" }}>
          {status.label}
        </Badge>
      </Table.Td>
      <Table.Td>
        <Stack gap={2}>
          {web?.allowedOrigins && (
            <Text size="xs">
              <Text span size="xs" c="dimmed">
                Websites:{" "}
              </Text>
              {web.allowedOrigins.join(", ")}
            </Text>
          )}
          {settings.map((f) => (
            <Text size="xs" key={f.label} style={{ overflowWrap: "anywhere" }}>
              <Text span size="xs" c="dimmed">
                {f.label}:{" "}
              </Text>
              {f.value}
            </Text>
          ))}
          {ch.campaignId && (
            <Text size="xs">
              <Text span size="xs" c="dimmed">
                Campaign:{" "}
              </Text>
              <Anchor component={Link} to={`/campaigns/${ch.campaignId}`} size="xs">
                {campaignName(ch.campaignId)}
              </Anchor>
            </Text>
          )}
          {ch.lastError &&
            (ch.status === "error" ? (
              <Text
                size="sm"
                fw={600}
                c="red.9"
                data-testid="last-error"
                style={{ overflowWrap: "anywhere" }}
              >
                Error: {ch.lastError}
              </Text>
            ) : (
              <Text size="xs" c="red.8" data-testid="last-error">
                Last error: {ch.lastError}
              </Text>
            ))}
          <Text size="xs" c="dimmed">
            Updated {fullTime(ch.updatedAt)}
          </Text>
        </Stack>
      </Table.Td>
      {manager && (
        <Table.Td>
          <Group gap={4} wrap="nowrap" justify="flex-end">
            <Button size="compact-sm" variant="light" onClick={onEdit}>
              Edit
            </Button>
            <Button
              size="compact-sm"
              variant="default"
              loading={toggle.isPending}
              onClick={() => toggle.mutate()}
            >
              {ch.status === "active" ? "Pause" : "Resume"}
            </Button>
            <Button size="compact-sm" variant="subtle" color="red" onClick={onDelete}>
              Delete…
            </Button>
          </Group>
        </Table.Td>
      )}
    </>
  );
}

function DeleteChannelDialog({ channel, onClose }: { channel: Channel; onClose: () => void }) {
  const remove = useDeleteChannel(channel);
  return (
    <ConfirmModal
      onClose={onClose}
      title={`Delete ${channel.name}?`}
      confirmLabel="Delete channel"
      action={remove}
      onConfirm={() => remove.mutate(undefined, { onSuccess: onClose })}
    >
      {channel.type === "web"
        ? "The chat disappears from your website at once and its snippet stops working. "
        : "Parley stops receiving and sending on this channel at once. "}
      Its conversations stay in the inbox, marked as from a deleted channel. This cannot be undone.
    </ConfirmModal>
  );
}
