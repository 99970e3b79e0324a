import { Switch, Table, Text } from "@mantine/core";
import type { NotificationKindInfo, PreferenceMap } from "../lib/queries/notifications.ts";

const MEDIA = [
  { key: "email", label: "E-mail" },
  { key: "app", label: "In the app" },
] as const;

/**
 * Kinds × media switches (a person's own choices, or the account's defaults). Each switch is named
 * "<medium>: <kind>", e.g. "E-mail: A conversation needs a human".
 */
export function NotificationPreferencesTable({
  kinds,
  value,
  onChange,
  caption,
}: {
  kinds: NotificationKindInfo[];
  value: PreferenceMap;
  onChange: (next: PreferenceMap) => void;
  caption: string;
}) {
  return (
    <Table.ScrollContainer minWidth={480}>
      <Table verticalSpacing="sm" captionSide="top">
        <caption style={{ textAlign: "left" }}>
          <Text component="span" size="sm" c="dimmed">
            {caption}
          </Text>
        </caption>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">Notification</Table.Th>
            {MEDIA.map((m) => (
              <Table.Th key={m.key} scope="col" ta="center" w={110}>
                {m.label}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {kinds.map((k) => {
            const current = value[k.kind] ?? { email: false, app: false };
            return (
              <Table.Tr key={k.kind}>
                <Table.Th scope="row" fw="normal">
                  <Text size="sm" fw={500}>
                    {k.label}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {k.description}
                  </Text>
                </Table.Th>
                {MEDIA.map((m) => (
                  <Table.Td key={m.key}>
                    <Switch
                      aria-label={`${m.label}: ${k.label}`}
                      checked={current[m.key]}
                      onChange={(e) =>
                        onChange({ ...value, [k.kind]: { ...current, [m.key]: e.currentTarget.checked } })
                      }
                      styles={{ body: { justifyContent: "center" } }}
                    />
                  </Table.Td>
                ))}
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
