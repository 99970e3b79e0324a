import { Button, Group, Paper, SimpleGrid, Table, Text, Title } from "@mantine/core";
import { DailyBarChart, shortDate } from "../../components/DailyBarChart.tsx";
import { ErrorState, LoadingState } from "../../components/States.tsx";
import { USAGE_DAYS, usageCsvUrl, useSubaccountUsage } from "../../lib/queries/usage.ts";

type Chart = Omit<Parameters<typeof DailyBarChart>[0], "data">;

/**
 * The sub-account page's "Usage, last 30 days": a chart a figure (each a captioned figure whose
 * caption says in words what the bars show), the period's totals, and the same days as a CSV download.
 */
export function SubaccountUsage({ subaccountId }: { subaccountId: string }) {
  const usage = useSubaccountUsage(subaccountId);
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="usage-heading">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4" id="usage-heading">
          Usage, last {USAGE_DAYS} days
        </Title>
        {/* A plain link: the browser saves the file with the session cookie. */}
        <Button component="a" href={usageCsvUrl(subaccountId)} download variant="default" size="xs">
          Download usage (CSV)
        </Button>
      </Group>
      {usage.isPending && <LoadingState label="Loading the usage" />}
      {usage.isError && <ErrorState error={usage.error} onRetry={() => void usage.refetch()} />}
      {usage.data && <UsageFigures usage={usage.data} />}
    </Paper>
  );
}

function UsageFigures({ usage }: { usage: NonNullable<ReturnType<typeof useSubaccountUsage>["data"]> }) {
  const { days, totals } = usage;
  const data = days.map((d) => ({ ...d, day: shortDate(d.date) }));
  const charts: Chart[] = [
    {
      title: "Messages per day",
      summary: `Messages from the client's contacts and messages sent to them: ${totals.messagesIn} in, ${totals.messagesOut} out.`,
      series: [
        { name: "messagesIn", label: "In", color: "blue.8" },
        { name: "messagesOut", label: "Out", color: "teal.8" },
      ],
    },
    {
      title: "Bot replies per day",
      summary: `Messages the bot sent: ${totals.botReplies}.`,
      series: [{ name: "botReplies", label: "Bot replies", color: "violet.8" }],
    },
    {
      title: "Credits used per day",
      summary: `Credits the client's bot used: ${totals.creditsUsed}.`,
      series: [{ name: "creditsUsed", label: "Credits", color: "gray.8" }],
    },
    {
      title: "Deliveries per day",
      summary: `Outgoing messages delivered (${totals.deliveriesSucceeded}) and failed (${totals.deliveriesFailed}).`,
      stacked: true,
      series: [
        { name: "deliveriesSucceeded", label: "Succeeded", color: "green.8" },
        { name: "deliveriesFailed", label: "Failed", color: "red.8" },
      ],
    },
  ];
  const rows: Array<[string, string]> = [
    ["Messages in", `${totals.messagesIn}`],
    ["Messages out", `${totals.messagesOut}`],
    ["Bot replies", `${totals.botReplies}`],
    ["Credits used", `${totals.creditsUsed}`],
    ["Deliveries succeeded", `${totals.deliveriesSucceeded}`],
    ["Deliveries failed", `${totals.deliveriesFailed}`],
    ["Delivery success", totals.deliverySuccessRate === null ? "—" : `${totals.deliverySuccessRate} %`],
  ];
  return (
    <>
      <Table aria-label={`Usage totals, last ${USAGE_DAYS} days`} maw={420} mb="md">
        <Table.Tbody>
          {rows.map(([label, value]) => (
            <Table.Tr key={label}>
              <Table.Th scope="row" fw={500}>
                {label}
              </Table.Th>
              <Table.Td ta="right">{value}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        {charts.map((chart) => (
          <DailyBarChart key={chart.title} data={data} headingOrder={3} {...chart} />
        ))}
      </SimpleGrid>
      <Text size="xs" c="dimmed" mt="xs">
        Days are UTC ({usage.from} to {usage.to}). A message counts on the day it was written.
      </Text>
    </>
  );
}
