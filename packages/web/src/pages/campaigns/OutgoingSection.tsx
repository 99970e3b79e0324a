import {
  Alert,
  Badge,
  Button,
  Group,
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
import { api, errorMessage } from "../../lib/api.ts";
import { notify } from "../../lib/notify.ts";
import type { Campaign, ListJson, OutgoingStats, Page } from "../../lib/types.ts";

const STATE_LABEL = { running: "Sending", paused: "Paused", done: "Done" } as const;

/** The campaign's outgoing side: a first message to every member of a list, with live progress. */
export function OutgoingSection({ campaign, editable }: { campaign: Campaign; editable: boolean }) {
  const client = useQueryClient();
  const o = campaign.outgoing;
  const [message, setMessage] = useState(o?.message ?? "Hi {{firstName|there}}! ");
  const [listId, setListId] = useState<string | null>(o?.listId ?? null);
  const [channel, setChannel] = useState(o?.channel ?? "");
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
  const refresh = () => {
    void client.invalidateQueries({ queryKey: ["campaign", campaign.id] });
  };
  const save = useMutation({
    mutationFn: () =>
      api("PATCH", `/campaigns/${campaign.id}`, {
        outgoing: { message, listId, channel: channel.trim(), ratePerMinute: Number(rate) || 60 },
      }),
    onSuccess: () => {
      notify("Outgoing message saved");
      refresh();
    },
  });
  const act = useMutation({
    mutationFn: (action: "start" | "pause") =>
      api<OutgoingStats>("POST", `/campaigns/${campaign.id}/${action}`),
    onSuccess: refresh,
    onError: (err) => notify(errorMessage(err), "error"),
  });
  const s = stats.data;
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
        Send a first message to every member of a list through a custom channel; the bot answers their
        replies. Members without a custom channel id are skipped; nobody gets it twice.
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
              placeholder="For example sms"
              value={channel}
              onChange={(e) => setChannel(e.currentTarget.value)}
            />
            <NumberInput label="Messages per minute" min={1} max={600} value={rate} onChange={setRate} />
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
                disabled={!listId || !channel.trim() || !message.trim()}
                onClick={() => save.mutate()}
              >
                Save outgoing message
              </Button>
              {o && s?.state !== "running" && (
                <Button color="green" loading={act.isPending} onClick={() => act.mutate("start")}>
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
    </Paper>
  );
}
