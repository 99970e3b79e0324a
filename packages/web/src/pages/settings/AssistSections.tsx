// A client's side of agency assist: the switch that allows it, and the audit log of what the agency
// changed while assisting (who, when, what).
import { Switch, Table, Text } from "@mantine/core";
import { LoadMore } from "../../components/LoadMore.tsx";
import { QueryStatus } from "../../components/QueryStatus.tsx";
import { Section } from "../../components/Section.tsx";
import { EmptyState } from "../../components/States.tsx";
import type { Session } from "../../lib/api-types.ts";
import { fullTime } from "../../lib/format.ts";
import {
  type AuditEntry,
  useAssistSettings,
  useAuditLog,
  useSetAssistAllowed,
} from "../../lib/queries/assist.ts";

export function AssistSection({ session }: { session: Session }) {
  const settings = useAssistSettings();
  const set = useSetAssistAllowed();
  return (
    <Section
      title="Agency assist"
      description="Your agency's owners and admins can work in this account for an hour at a time, to help you. Everything they change is in the audit log below."
    >
      <Switch
        label="Allow agency assist"
        checked={settings.data?.allowed ?? true}
        disabled={!settings.data || set.isPending || !!session.assist}
        onChange={(e) => set.mutate(e.currentTarget.checked)}
      />
      {session.assist && (
        <Text size="xs" c="dimmed">
          Only the account's own team can change this.
        </Text>
      )}
    </Section>
  );
}

const actorOf = (e: AuditEntry) => (e.actor.name ? `${e.actor.name} (${e.actor.email})` : e.actor.email);

/** A plain table (no scroll area): its rows hold nothing to focus, which a scrollable region would need. */
export function AuditLogSection() {
  const log = useAuditLog();
  const rows = log.data?.pages.flatMap((p) => p.data);
  return (
    <Section
      title="Audit log"
      description="What your agency changed while assisting this account, newest first."
    >
      <QueryStatus query={log} loadingLabel="Loading the audit log" />
      {rows?.length === 0 && (
        <EmptyState title="Nothing yet">Your agency has not changed anything here.</EmptyState>
      )}
      {rows && rows.length > 0 && (
        <Table aria-label="Audit log" fz="sm" layout="fixed">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w="22%">When</Table.Th>
              <Table.Th>Who</Table.Th>
              <Table.Th>What</Table.Th>
              <Table.Th>Object</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((e) => (
              <Table.Tr key={e.id}>
                <Table.Td>{fullTime(e.createdAt)}</Table.Td>
                <Table.Td style={{ overflowWrap: "anywhere" }}>
                  {actorOf(e)}, {e.agency.name}
                </Table.Td>
                <Table.Td ff="monospace" style={{ overflowWrap: "anywhere" }}>
                  {e.method} {e.route}
                </Table.Td>
                <Table.Td ff="monospace" style={{ overflowWrap: "anywhere" }}>
                  {e.objectId ?? ""}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <LoadMore pages={log} variant="default" />
    </Section>
  );
}
