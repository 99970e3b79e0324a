import {
  Anchor,
  Badge,
  Box,
  Button,
  Code,
  Collapse,
  Group,
  Image,
  Paper,
  Stack,
  Table,
  Text,
} from "@mantine/core";
import { useState } from "react";
import { DataTable } from "../../components/DataTable.tsx";
import type { Message } from "../../lib/api-types.ts";
import { fullTime, shortTime } from "../../lib/format.ts";
import { linkify } from "../../lib/linkify.tsx";
import { useResendMessage } from "../../lib/queries/conversations.ts";

function senderLabel(m: Message, contactName: string): string {
  switch (m.sender) {
    case "contact":
      return contactName;
    case "bot":
      return "Bot";
    case "human":
      return m.senderName ?? "A teammate";
    default:
      return "API";
  }
}

/**
 * Delivery status of an outbound message, in words: Pending, Sent, Failed, and on the provider channels
 * that report it, Delivered (on the customer's device) and Read.
 */
const STATUS_BADGES: Record<string, { label: string; color: string }> = {
  pending: { label: "Pending", color: "gray.8" },
  sent: { label: "Sent", color: "green.9" },
  delivered: { label: "Delivered", color: "green.9" },
  read: { label: "Read", color: "teal.9" },
  failed: { label: "Failed", color: "red.9" },
};

/**
 * What kind of bot message it is, where that matters to the team: the replies that handed the
 * conversation to a person (the fallback, the hand-over on request), and a campaign's follow-up.
 */
const BOT_NOTE: Record<string, string> = {
  fallback: "Fallback · a person was alerted",
  handover: "Hand-over · a person was alerted",
  follow_up: "Follow-up · sent because the customer had not answered",
  away: "Away message · sent outside business hours; a person was alerted",
  choices: "Did you mean · the bot offered choices; the customer's pick gets that answer",
};

/** Local "14:05" (24-hour, as the retry label says it). */
function hourMinute(isoString: string): string {
  const d = new Date(isoString);
  return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
}

/**
 * A failed attempt with retries left says so: "Failed, retrying at 14:05 (attempt 2 of 8)"; after
 * the last attempt, just "Failed" (with the error below).
 */
export function retryLabel(retry: NonNullable<Message["retry"]>): string {
  const of = retry.maxAttempts ? ` of ${retry.maxAttempts}` : "";
  return `Failed, retrying at ${hourMinute(retry.nextAttemptAt)} (attempt ${retry.attempt}${of})`;
}

function StatusBadge({ status, retry }: { status: string; retry?: Message["retry"] }) {
  if (status === "failed" && retry) {
    return (
      <Badge color="orange.9" variant="light" tt="none" title={fullTime(retry.nextAttemptAt)}>
        {retryLabel(retry)}
      </Badge>
    );
  }
  const badge = STATUS_BADGES[status];
  if (!badge) return null;
  return (
    <Badge color={badge.color} variant="light">
      {badge.label}
    </Badge>
  );
}

export function MessageItem({
  message: m,
  contactName,
  seen = false,
  onResent,
  highlighted = false,
}: {
  message: Message;
  contactName: string;
  /** The contact saw it (the website chat reports when its visitor has the panel on screen). */
  seen?: boolean;
  onResent: () => void;
  /** The message a search hit opened the conversation at. */
  highlighted?: boolean;
}) {
  const outbound = m.direction === "outbound";
  const [showAttempts, setShowAttempts] = useState(false);
  const resend = useResendMessage(m.id);
  return (
    <Box style={{ display: "flex", justifyContent: outbound ? "flex-end" : "flex-start" }}>
      <Paper
        p="xs"
        radius="md"
        maw="85%"
        withBorder
        bg={outbound ? "var(--mantine-color-blue-0)" : "var(--mantine-color-gray-0)"}
        data-message-id={m.id}
        data-status={m.status}
        aria-current={highlighted ? "true" : undefined}
        style={
          highlighted ? { outline: "3px solid var(--mantine-color-yellow-6)", outlineOffset: 2 } : undefined
        }
      >
        <Group gap={6} justify="space-between" wrap="nowrap">
          <Text size="xs" fw={600}>
            {senderLabel(m, contactName)}
          </Text>
          <Text size="xs" c="dimmed" title={fullTime(m.createdAt)}>
            {shortTime(m.createdAt)}
          </Text>
        </Group>
        {m.type === "reaction" ? (
          <Text size="sm">Reacted {m.body}</Text>
        ) : (
          m.body && (
            <Text size="sm" style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>
              {linkify(m.body)}
            </Text>
          )
        )}
        {m.media && <Media media={m.media} />}
        {m.sender === "bot" && m.botOutcome && BOT_NOTE[m.botOutcome] && (
          <Text size="xs" c="dimmed" fw={600} mt={2}>
            {BOT_NOTE[m.botOutcome]}
          </Text>
        )}
        {m.reactions.length > 0 && (
          <Group gap={4} mt={4} aria-label="Reactions">
            {m.reactions.map((r) => (
              <Badge key={`${r.body}-${r.createdAt}`} variant="default" size="sm">
                {r.body}
              </Badge>
            ))}
          </Group>
        )}
        {outbound && (
          <Group gap={6} mt={6} justify="flex-end">
            <StatusBadge status={m.status} retry={m.retry} />
            {seen && (
              <Badge color="teal.9" variant="light">
                Seen
              </Badge>
            )}
          </Group>
        )}
        {outbound && m.status === "failed" && (
          <Stack gap={6} mt={6}>
            {m.error && (
              <Box>
                <Text size="xs" fw={600} c="red.9">
                  {m.error.statusCode !== null
                    ? `Receiver answered ${m.error.statusCode}`
                    : m.error.errorClass}
                </Text>
                {m.error.message && <Text size="xs">{m.error.message}</Text>}
                {m.error.responseBody && (
                  <Code block fz="xs" mt={2}>
                    {m.error.responseBody}
                  </Code>
                )}
              </Box>
            )}
            <Group gap="xs">
              <Button
                size="xs"
                color="red.9"
                loading={resend.isPending}
                onClick={() => resend.mutate(undefined, { onSuccess: () => onResent() })}
              >
                Resend
              </Button>
              {m.deliveryAttempts.length > 0 && (
                <Button
                  size="xs"
                  variant="subtle"
                  onClick={() => setShowAttempts((v) => !v)}
                  aria-expanded={showAttempts}
                >
                  {showAttempts ? "Hide attempts" : `Delivery attempts (${m.deliveryAttempts.length})`}
                </Button>
              )}
            </Group>
          </Stack>
        )}
        {outbound && m.status !== "failed" && m.deliveryAttempts.length > 0 && (
          <Button
            size="compact-xs"
            variant="subtle"
            mt={4}
            onClick={() => setShowAttempts((v) => !v)}
            aria-expanded={showAttempts}
          >
            {showAttempts ? "Hide attempts" : `Delivery attempts (${m.deliveryAttempts.length})`}
          </Button>
        )}
        <Collapse expanded={showAttempts}>
          <DataTable
            fz="xs"
            mt={6}
            withTableBorder
            verticalSpacing={2}
            aria-label="Delivery attempts"
            columns={["#", "When", "Result", "Time"]}
            rows={m.deliveryAttempts}
            rowKey={(a) => a.id}
            cells={(a, i) => (
              <>
                <Table.Td>{a.attemptNumber ?? i + 1}</Table.Td>
                <Table.Td>{fullTime(a.attemptedAt)}</Table.Td>
                <Table.Td>
                  {a.statusCode !== null ? `HTTP ${a.statusCode}` : a.errorClass}
                  {a.errorMessage ? ` · ${a.errorMessage}` : ""}
                  {a.trigger === "manual" ? " · resend" : ""}
                  {a.nextAttemptAt ? ` · next try ${fullTime(a.nextAttemptAt)}` : ""}
                </Table.Td>
                <Table.Td>{a.durationMs !== null ? `${a.durationMs} ms` : ""}</Table.Td>
              </>
            )}
          />
        </Collapse>
      </Paper>
    </Box>
  );
}

function Media({ media }: { media: NonNullable<Message["media"]> }) {
  if (media.state === "rejected") {
    return (
      <Text size="xs" c="red.9" mt={4}>
        Attachment rejected: {media.reason ?? "not accepted"}
      </Text>
    );
  }
  if (media.state === "pending") {
    return (
      <Text size="xs" c="dimmed" mt={4}>
        Attachment loading…
      </Text>
    );
  }
  if (media.contentType?.startsWith("image/")) {
    return (
      <Anchor href={media.url} target="_blank" rel="noreferrer">
        <Image src={media.url} alt="Image attachment" mah={240} w="auto" fit="contain" radius="sm" mt={4} />
      </Anchor>
    );
  }
  return (
    <Anchor href={media.url} target="_blank" rel="noreferrer" size="sm" display="block" mt={4}>
      {media.contentType === "application/pdf"
        ? "PDF attachment"
        : `Attachment (${media.contentType ?? "file"})`}
    </Anchor>
  );
}
