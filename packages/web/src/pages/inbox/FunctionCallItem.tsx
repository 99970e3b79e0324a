// One call the bot made to a campaign's function, in the thread between the customer's message and the
// bot's reply. Internal: styled apart from the messages (grey, dashed, centred) and never sent to the
// customer.
import { Badge, Box, Code, Group, Stack, Text } from "@mantine/core";
import type { FunctionCall, FunctionCallStatus } from "../../lib/api-types.ts";
import { InternalItem } from "./InternalItem.tsx";

const STATUS_BADGES: Record<FunctionCallStatus, { label: string; color: string }> = {
  ok: { label: "OK", color: "green.9" },
  error: { label: "Error", color: "red.9" },
  timeout: { label: "Timed out", color: "red.9" },
  blocked: { label: "Blocked address", color: "red.9" },
  invalid_arguments: { label: "Invalid arguments", color: "orange.9" },
};

function argumentsText(args: FunctionCall["arguments"]): string {
  if (typeof args === "string") return args;
  return JSON.stringify(args);
}

export function FunctionCallItem({ call: c }: { call: FunctionCall }) {
  const badge = STATUS_BADGES[c.status] ?? { label: c.status, color: "gray.8" };
  const title = `Function call · ${c.name}`;
  return (
    <InternalItem
      label={title}
      heading={
        <Group gap={6} wrap="nowrap">
          <Text size="xs" fw={700}>
            {title}
          </Text>
          <Badge color={badge.color} variant="light" size="sm">
            {badge.label}
          </Badge>
        </Group>
      }
      createdAt={c.createdAt}
      bg="var(--mantine-color-gray-1)"
      border="1px dashed var(--mantine-color-gray-6)"
      data-function-call-id={c.id}
      data-status={c.status}
    >
      <Text size="xs" c="dimmed" fs="italic">
        Only your team sees this
      </Text>
      <Stack gap={4} mt={4}>
        <Box>
          <Text size="xs" fw={600}>
            Arguments
          </Text>
          <Code block fz="xs" style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>
            {argumentsText(c.arguments)}
          </Code>
        </Box>
        <Text size="xs">
          {[c.statusCode !== null ? `HTTP ${c.statusCode}` : null, `${c.durationMs} ms`]
            .filter(Boolean)
            .join(" · ")}
        </Text>
        {c.error && (
          <Text size="xs" c="red.9" style={{ overflowWrap: "anywhere" }}>
            {c.error}
          </Text>
        )}
        {c.response !== null && (
          <Box>
            <Text size="xs" fw={600}>
              Response
            </Text>
            <Code block fz="xs" style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>
              {c.response || "(empty)"}
            </Code>
          </Box>
        )}
      </Stack>
    </InternalItem>
  );
}
