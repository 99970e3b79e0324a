// The header's client switcher for an agency's owners and admins: search the agency's clients (their
// balance, and how many conversations need a human there) and assist one; while assisting, go back.
import {
  Badge,
  Button,
  Group,
  Popover,
  ScrollArea,
  Stack,
  Text,
  TextInput,
  UnstyledButton,
} from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useState } from "react";
import type { Session } from "../lib/api-types.ts";
import { credits } from "../lib/format.ts";
import { useAssistClients, useEndAssist, useStartAssist } from "../lib/queries/assist.ts";

export function ClientSwitcher({ session }: { session: Session }) {
  const [opened, setOpened] = useState(false);
  const [search, setSearch] = useState("");
  const [debounced] = useDebouncedValue(search.trim(), 200);
  const clients = useAssistClients(debounced, opened);
  const start = useStartAssist();
  const end = useEndAssist();
  const current = session.assist?.clientId;
  return (
    <Popover opened={opened} onChange={setOpened} position="bottom-end" width={320} withinPortal trapFocus>
      <Popover.Target>
        <Button variant="default" size="compact-md" onClick={() => setOpened((o) => !o)}>
          Switch client
        </Button>
      </Popover.Target>
      <Popover.Dropdown>
        <Stack gap="xs">
          <TextInput
            label="Search clients"
            value={search}
            onChange={(e) => setSearch(e.currentTarget.value)}
            data-autofocus
          />
          {session.assist && (
            <Button variant="light" onClick={() => end.mutate()} loading={end.isPending}>
              Back to the agency
            </Button>
          )}
          <ScrollArea.Autosize mah={320}>
            <Stack gap={2} role="group" aria-label="Clients">
              {clients.isPending && <Text size="sm">Loading clients…</Text>}
              {clients.isError && <Text size="sm">The clients could not be loaded.</Text>}
              {clients.data?.data.length === 0 && <Text size="sm">No client matches.</Text>}
              {clients.data?.data.map((c) => (
                <UnstyledButton
                  key={c.id}
                  disabled={c.suspended || c.id === current || start.isPending}
                  onClick={() => start.mutate(c.id)}
                  aria-current={c.id === current ? "true" : undefined}
                  p={6}
                  style={{ borderRadius: 4 }}
                >
                  <Group justify="space-between" wrap="nowrap" gap="xs">
                    <Text size="sm" fw={500} truncate>
                      {c.name}
                    </Text>
                    <Group gap={4} wrap="nowrap">
                      {c.needsHuman > 0 && (
                        <Badge color="red" size="sm">
                          {c.needsHuman} need a human
                        </Badge>
                      )}
                      {c.suspended && (
                        <Badge color="gray" size="sm">
                          Suspended
                        </Badge>
                      )}
                      <Text size="xs" c="dimmed">
                        {credits(c.balance)} credits
                      </Text>
                    </Group>
                  </Group>
                </UnstyledButton>
              ))}
            </Stack>
          </ScrollArea.Autosize>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}
