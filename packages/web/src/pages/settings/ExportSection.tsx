import { Button, Group, Text } from "@mantine/core";
import { Section } from "../../components/Section.tsx";

const DOWNLOADS = [
  { kind: "contacts", format: "csv", label: "Export contacts (CSV)" },
  { kind: "contacts", format: "jsonl", label: "Export contacts (JSON Lines)" },
  { kind: "conversations", format: "csv", label: "Export conversations (CSV)" },
  { kind: "conversations", format: "jsonl", label: "Export conversations (JSON Lines)" },
] as const;

/**
 * Downloads of the account's data (owners and admins, as this page). Plain links: the browser streams
 * the file to disk with the session cookie, however large the account.
 */
export function ExportSection() {
  return (
    <Section
      title="Export data"
      description="Every contact with its labels and lists, or every conversation with its messages. CSV opens in a spreadsheet; JSON Lines suits scripts and other tools."
    >
      <Group gap="xs">
        {DOWNLOADS.map((d) => (
          <Button
            key={`${d.kind}-${d.format}`}
            component="a"
            href={`/app/api/exports/${d.kind}?format=${d.format}`}
            download
            variant="default"
          >
            {d.label}
          </Button>
        ))}
      </Group>
      <Text size="xs" c="dimmed">
        Cells that a spreadsheet would run as a formula start with an apostrophe.
      </Text>
    </Section>
  );
}
