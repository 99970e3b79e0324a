import { BarChart, type BarChartSeries } from "@mantine/charts";
import { Paper, Text, Title } from "@mantine/core";

/** "Nov 3" for a UTC day "2026-11-03": the label under a day's bar. */
export const shortDate = (iso: string) =>
  new Date(`${iso}T00:00:00Z`).toLocaleDateString(undefined, {
    month: "short",
    day: "numeric",
    timeZone: "UTC",
  });

/**
 * One chart of per-day figures in a captioned figure: the title names it for screen readers and the
 * summary says in words what the bars show. `data` rows carry a `day` label (see shortDate).
 */
export function DailyBarChart({
  title,
  summary,
  data,
  series,
  stacked = false,
  headingOrder = 2,
}: {
  title: string;
  summary: string;
  data: Array<Record<string, unknown> & { day: string }>;
  series: BarChartSeries[];
  stacked?: boolean;
  /** 3 when the charts sit in a section under its own h2 (the sub-account page's usage). */
  headingOrder?: 2 | 3;
}) {
  return (
    <Paper withBorder p="md" radius="md" component="figure" m={0} aria-label={title}>
      <Title order={headingOrder} size="h4" mb={4}>
        {title}
      </Title>
      <Text size="sm" c="dimmed" mb="sm" component="figcaption">
        {summary}
      </Text>
      <BarChart
        h={220}
        data={data}
        dataKey="day"
        type={stacked ? "stacked" : "default"}
        series={series}
        withLegend={series.length > 1}
      />
    </Paper>
  );
}
