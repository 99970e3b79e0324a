// The banner on every page while an agency person assists a client: whose account this is, and the
// way back to the agency (which ends the assist).
import { Alert, Button, Group, Text } from "@mantine/core";
import type { Session } from "../lib/api-types.ts";
import { shortTime } from "../lib/format.ts";
import { useEndAssist } from "../lib/queries/assist.ts";

export function AssistBanner({ assist }: { assist: NonNullable<Session["assist"]> }) {
  const end = useEndAssist();
  return (
    <Alert color="orange" mb="md" p="xs" aria-label="Assist" role="region">
      <Group gap="sm" wrap="wrap">
        <Text size="sm" fw={500}>
          Assisting {assist.clientName}, return to the agency
        </Text>
        <Button size="compact-sm" variant="default" loading={end.isPending} onClick={() => end.mutate()}>
          Return to the agency
        </Button>
        <Text size="xs" c="dimmed">
          Everything you change here is in {assist.clientName}'s audit log. Ends at{" "}
          {shortTime(assist.expiresAt)}.
        </Text>
      </Group>
    </Alert>
  );
}
