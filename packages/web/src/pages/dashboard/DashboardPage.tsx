import { Alert, Anchor, Group, List, Paper, SimpleGrid, Stack, Table, Text } from "@mantine/core";
import { Link } from "react-router";
import { ChannelIcon } from "../../components/ChannelIcon.tsx";
import { DailyBarChart, shortDate } from "../../components/DailyBarChart.tsx";
import { DataTable, numeric } from "../../components/DataTable.tsx";
import { PageHeader } from "../../components/PageHeader.tsx";
import { Section } from "../../components/Section.tsx";
import { ErrorState, LoadingState } from "../../components/States.tsx";
import type { BotFunctionFigures, Channel, ChannelFigures, LlmTokens } from "../../lib/api-types.ts";
import { CHANNEL_TYPE_LABELS, channelKindLabel } from "../../lib/channels.ts";
import { useChannels } from "../../lib/queries/channels.ts";
import { useDashboard } from "../../lib/queries/dashboard.ts";
import { useDocumentTitle } from "../../lib/useDocumentTitle.ts";

function Stat({ label, value, hint }: { label: string; value: string; hint?: string }) {
  return (
    <Paper withBorder p="md" radius="md">
      <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
        {label}
      </Text>
      <Text fz={28} fw={700} lh={1.2}>
        {value}
      </Text>
      {hint && (
        <Text size="xs" c="dimmed">
          {hint}
        </Text>
      )}
    </Paper>
  );
}

/** The first page after sign-in: the last 30 days at a glance, and who is waiting for a person. */
export function DashboardPage() {
  useDocumentTitle("Dashboard");
  const data = useDashboard();
  // The same list as Settings → Channels (every role reads it): the ones in error are shown on top.
  const channels = useChannels();
  const broken = (channels.data?.data ?? []).filter((ch) => ch.status === "error");
  if (data.isPending) return <LoadingState label="Loading the dashboard" />;
  if (data.isError) return <ErrorState error={data.error} onRetry={() => void data.refetch()} />;
  const { days, totals, waitingForPerson } = data.data;
  const chartData = days.map((d) => ({ ...d, day: shortDate(d.date) }));
  const today = days.at(-1);
  const charts: Array<Omit<Parameters<typeof DailyBarChart>[0], "data">> = [
    {
      title: "Messages per day",
      summary: `Incoming and outgoing messages, last 30 days (today: ${today?.inbound ?? 0} in, ${today?.outbound ?? 0} out).`,
      series: [
        { name: "inbound", label: "Incoming", color: "blue.8" },
        { name: "outbound", label: "Outgoing", color: "teal.8" },
      ],
    },
    {
      title: "Deliveries per day",
      summary: "Replies your webhook accepted (sent) and refused (failed).",
      stacked: true,
      series: [
        { name: "sent", label: "Sent", color: "green.8" },
        { name: "failed", label: "Failed", color: "red.8" },
      ],
    },
    {
      title: "Bot answers and fallbacks",
      summary: "Replies the bot found in its knowledge against fallbacks that handed over to a person.",
      stacked: true,
      series: [
        { name: "botAnswers", label: "Answers", color: "violet.8" },
        { name: "botFallbacks", label: "Fallbacks", color: "orange.8" },
      ],
    },
    {
      title: "Credits used per day",
      summary: `Credits the bot's replies used: ${totals.creditsUsed} in 30 days.`,
      series: [{ name: "creditsUsed", label: "Credits", color: "gray.8" }],
    },
  ];
  return (
    <Stack gap="md">
      <PageHeader title="Dashboard" />
      {broken.length > 0 && <BrokenChannels channels={broken} />}
      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }}>
        <Paper withBorder p="md" radius="md">
          <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
            Waiting for a person
          </Text>
          <Text fz={28} fw={700} lh={1.2}>
            {waitingForPerson}
          </Text>
          <Anchor component={Link} to="/inbox?humanAlert=true" size="sm">
            Open them in the inbox
          </Anchor>
        </Paper>
        <Stat
          label="Messages, 30 days"
          value={`${totals.inbound + totals.outbound}`}
          hint={`${totals.inbound} in, ${totals.outbound} out · today ${(today?.inbound ?? 0) + (today?.outbound ?? 0)}`}
        />
        <Stat
          label="Delivery success"
          value={totals.deliverySuccessRate === null ? "—" : `${totals.deliverySuccessRate} %`}
          hint={`${totals.sent} sent, ${totals.failed} failed`}
        />
        <Stat
          label="Bot answers"
          value={`${totals.botAnswers}`}
          hint={`${totals.botFallbacks} fallbacks · ${totals.creditsUsed} credits used`}
        />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        {charts.map((chart) => (
          <DailyBarChart key={chart.title} data={chartData} {...chart} />
        ))}
      </SimpleGrid>
      {data.data.byChannel && <ByChannel rows={data.data.byChannel} />}
      {(data.data.botFunctions || data.data.llmTokens) && (
        <BotFunctions rows={data.data.botFunctions ?? []} tokens={data.data.llmTokens ?? null} />
      )}
      <Group>
        <Text size="xs" c="dimmed">
          Days are UTC. Finished days are computed once and kept; the last two are counted live.
        </Text>
      </Group>
    </Stack>
  );
}

/** Channels in error (credentials refused, a webhook the provider did not take): what and where to fix. */
function BrokenChannels({ channels }: { channels: Channel[] }) {
  return (
    <Alert
      color="red"
      title={channels.length === 1 ? "A channel is in error" : `${channels.length} channels are in error`}
    >
      <List size="sm" spacing={4} aria-label="Channels in error">
        {channels.map((ch) => (
          <List.Item key={ch.id}>
            <Text span size="sm" fw={600}>
              {ch.name}
            </Text>{" "}
            ({CHANNEL_TYPE_LABELS[ch.type]}): {ch.lastError ?? "no error message"}
          </List.Item>
        ))}
      </List>
      <Anchor component={Link} to="/settings/channels" size="sm" mt="xs" display="inline-block">
        Open Settings → Channels
      </Anchor>
    </Alert>
  );
}

/** The 30 days' messages split by channel, as a table (exact figures, readable by screen readers). */
function ByChannel({ rows }: { rows: ChannelFigures[] }) {
  return (
    <Section
      title="Messages by channel"
      description="Last 30 days, per channel: your own integration (the custom channel) and each built-in channel."
    >
      <Table.ScrollContainer minWidth={560}>
        <DataTable
          aria-label="Messages by channel"
          verticalSpacing={6}
          columns={[
            "Channel",
            numeric("Incoming"),
            numeric("Outgoing"),
            numeric("Sent"),
            numeric("Failed"),
            numeric("Bot answers"),
          ]}
          rows={rows}
          rowKey={(r) => r.channelId ?? "custom"}
          cells={(r) => (
            <>
              <Table.Td>
                <Group gap={6} wrap="nowrap">
                  <ChannelIcon kind={r.channelType} />
                  <Text size="sm">{r.name ?? channelKindLabel(r.channelType)}</Text>
                </Group>
              </Table.Td>
              <Table.Td ta="right">{r.inbound}</Table.Td>
              <Table.Td ta="right">{r.outbound}</Table.Td>
              <Table.Td ta="right">{r.sent}</Table.Td>
              <Table.Td ta="right">{r.failed}</Table.Td>
              <Table.Td ta="right">{r.botAnswers}</Table.Td>
            </>
          )}
        />
      </Table.ScrollContainer>
    </Section>
  );
}

const count = new Intl.NumberFormat();

/** The LLM bot's function calls and token use over the 30 days. */
function BotFunctions({ rows, tokens }: { rows: BotFunctionFigures[]; tokens: LlmTokens | null }) {
  return (
    <Section
      title="Bot functions"
      description="Last 30 days: how often the LLM bot called each of your campaigns' functions, and how often the call failed (an error, a timeout or invalid arguments)."
    >
      {rows.length === 0 ? (
        <Text size="sm" c="dimmed">
          No function calls yet. Add functions to a campaign that uses the LLM engine.
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={360}>
          <DataTable
            aria-label="Bot functions"
            verticalSpacing={6}
            columns={["Function", numeric("Calls"), numeric("Failures")]}
            rows={rows}
            rowKey={(r) => r.name}
            cells={(r) => (
              <>
                <Table.Td>
                  <Text size="sm" ff="monospace">
                    {r.name}
                  </Text>
                </Table.Td>
                <Table.Td ta="right">{count.format(r.calls)}</Table.Td>
                <Table.Td ta="right" c={r.failures > 0 ? "red.9" : undefined}>
                  {count.format(r.failures)}
                </Table.Td>
              </>
            )}
          />
        </Table.ScrollContainer>
      )}
      {tokens && (
        <Text size="sm" mt="sm" aria-label="LLM tokens">
          LLM tokens: {count.format(tokens.input)} in, {count.format(tokens.output)} out
        </Text>
      )}
    </Section>
  );
}
