import {
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  List,
  Modal,
  NumberInput,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from "@mantine/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { api, errorMessage } from "../../lib/api.ts";
import { notify } from "../../lib/notify.ts";
import type { Campaign, ListJson, OutgoingStats, Page, SkippedMember } from "../../lib/types.ts";

const STATE_LABEL = { running: "Sending", paused: "Paused", done: "Done" } as const;
const SKIP_REASON = {
  no_custom_channel_id: "no custom channel id",
  no_known_channel: "no channel of its own, and the campaign names none",
} as const;

const nameOf = (m: SkippedMember) =>
  [m.firstName, m.lastName].filter(Boolean).join(" ") || m.phone || m.email || m.contactId;

/** The campaign's outgoing side: a first message to every member of a list, with live progress. */
export function OutgoingSection({ campaign, editable }: { campaign: Campaign; editable: boolean }) {
  const client = useQueryClient();
  const o = campaign.outgoing;
  const [message, setMessage] = useState(o?.message ?? "Hi {{firstName|there}}! ");
  const [listId, setListId] = useState<string | null>(o?.listId ?? null);
  const [channel, setChannel] = useState(o?.channel ?? "");
  const [confirming, setConfirming] = useState(false);
  const [rate, setRate] = useState<number | string>(o?.ratePerMinute ?? 60);
  const lists = useQuery({
    queryKey: ["lists", "all"],
    queryFn: () => api<Page<ListJson>>("GET", "/lists?limit=200"),
  });
  const stats = useQuery({
    queryKey: ["campaign", campaign.id, "stats"],
    queryFn: () => api<OutgoingStats>("GET", `/campaigns/${campaign.id}/stats`),
    enabled: o !== null,
    refetchInterval: (q) => (q.state.data?.state === "running" ? 2000 : false),
  });
  const s = stats.data;
  const skipped = useQuery({
    queryKey: ["campaign", campaign.id, "skipped"],
    queryFn: () => api<Page<SkippedMember>>("GET", `/campaigns/${campaign.id}/skipped?limit=50`),
    enabled: (s?.skipped ?? 0) > 0,
  });
  const refresh = () => {
    void client.invalidateQueries({ queryKey: ["campaign", campaign.id] });
  };
  const save = useMutation({
    mutationFn: () =>
      api("PATCH", `/campaigns/${campaign.id}`, {
        outgoing: { message, listId, channel: channel.trim() || null, ratePerMinute: Number(rate) || 60 },
      }),
    onSuccess: () => {
      notify("Outgoing message saved");
      refresh();
    },
  });
  const act = useMutation({
    mutationFn: (action: "start" | "pause") =>
      api<OutgoingStats>("POST", `/campaigns/${campaign.id}/${action}`),
    onSuccess: () => {
      setConfirming(false);
      refresh();
    },
    onError: (err) => notify(errorMessage(err), "error"),
  });
  // Done with nobody left: nothing to start (members added to the list later make it startable again).
  const finished = s?.state === "done" && s.queued === 0;
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="outgoing-heading">
      <Group justify="space-between" mb={4}>
        <Title order={2} size="h4" id="outgoing-heading">
          Outgoing message
        </Title>
        {s?.state && (
          <Badge
            variant="light"
            color={s.state === "running" ? "green" : s.state === "paused" ? "yellow" : "gray"}
          >
            {STATE_LABEL[s.state]}
          </Badge>
        )}
      </Group>
      <Text size="sm" c="dimmed" mb="sm">
        Send a first message to every member of a list, each on the custom channel it wrote in on; the bot
        answers their replies. Members without a custom channel id, or without any channel when the campaign
        names none, are skipped; nobody gets it twice.
      </Text>
      <fieldset disabled={!editable} style={{ border: 0, padding: 0, margin: 0 }}>
        <Stack gap="sm">
          <Textarea
            label="First message"
            description="{{firstName}} is the contact's first name; {{firstName|there}} says “there” when it is empty"
            autosize
            minRows={2}
            value={message}
            onChange={(e) => setMessage(e.currentTarget.value)}
            maxLength={2000}
          />
          <Group grow align="flex-start">
            <Select
              label="To the list"
              placeholder="Pick a list"
              data={(lists.data?.data ?? []).map((l) => ({
                value: l.id,
                label: `${l.name} (${l.memberCount})`,
              }))}
              value={listId}
              onChange={setListId}
            />
            <TextInput
              label="Custom channel"
              description="Only for members who never wrote in on a channel (e.g. imported); optional"
              placeholder="For example sms"
              value={channel}
              onChange={(e) => setChannel(e.currentTarget.value)}
            />
            <NumberInput
              label="Messages per minute"
              description="Up to the server's limit (6,000 by default)"
              min={1}
              value={rate}
              onChange={setRate}
            />
          </Group>
          {save.isError && (
            <Alert color="red" role="alert">
              {errorMessage(save.error)}
            </Alert>
          )}
          {editable && (
            <Group gap="xs">
              <Button
                variant="light"
                loading={save.isPending}
                disabled={!listId || !message.trim()}
                onClick={() => save.mutate()}
              >
                Save outgoing message
              </Button>
              {o && s?.state !== "running" && (
                <Button color="green" disabled={finished} onClick={() => setConfirming(true)}>
                  {s?.state === "paused" ? "Resume sending" : "Start sending"}
                </Button>
              )}
              {o && s?.state === "running" && (
                <Button
                  color="yellow"
                  variant="outline"
                  loading={act.isPending}
                  onClick={() => act.mutate("pause")}
                >
                  Pause sending
                </Button>
              )}
            </Group>
          )}
        </Stack>
      </fieldset>
      {s?.pausedReason === "out_of_credits" && (
        <Alert color="red" mt="sm" role="alert">
          Paused: the account is out of credits. Add credits, then resume.
        </Alert>
      )}
      <Modal
        opened={confirming}
        onClose={() => setConfirming(false)}
        title={s?.state === "paused" ? "Resume sending?" : "Start sending?"}
        closeButtonProps={{ "aria-label": "Close" }}
      >
        <Text size="sm" mb="md">
          {s?.queued ?? 0} member{s?.queued === 1 ? "" : "s"} of the list will get the first message now, at
          up to {o?.ratePerMinute ?? 0} a minute. Sent messages cannot be taken back.
        </Text>
        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={() => setConfirming(false)}>
            Cancel
          </Button>
          <Button color="green" loading={act.isPending} onClick={() => act.mutate("start")}>
            Send
          </Button>
        </Group>
      </Modal>
      {s && (
        <SimpleGrid cols={{ base: 3, sm: 6 }} mt="sm" aria-label="Outgoing progress">
          {(["queued", "pending", "sent", "failed", "skipped", "replied"] as const).map((k) => (
            <div key={k}>
              <Text size="xs" c="dimmed" tt="capitalize">
                {k}
              </Text>
              <Text fw={700}>{s[k]}</Text>
            </div>
          ))}
        </SimpleGrid>
      )}
      {s && s.skipped > 0 && (
        <Stack gap={4} mt="sm" aria-label="Skipped members">
          <Text size="sm">
            Skipped {s.skipped}:{" "}
            {(["no_custom_channel_id", "no_known_channel"] as const)
              .filter((r) => s.skippedByReason[r] > 0)
              .map((r) => `${s.skippedByReason[r]} with ${SKIP_REASON[r]}`)
              .join("; ")}
            .
          </Text>
          <List size="sm">
            {(skipped.data?.data ?? []).map((m) => (
              <List.Item key={m.contactId}>
                <Anchor component={Link} to={`/contacts/${m.contactId}`}>
                  {nameOf(m)}
                </Anchor>
                : {SKIP_REASON[m.reason]}
              </List.Item>
            ))}
          </List>
          {skipped.data?.hasMore && (
            <Text size="xs" c="dimmed">
              The first 50 are listed.
            </Text>
          )}
        </Stack>
      )}
    </Paper>
  );
}
