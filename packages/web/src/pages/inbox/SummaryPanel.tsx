// What the bot tells the person taking over a conversation: a short summary (LLM engine), the customer's
// questions it could not answer, and why it handed over. Shown at the top of a conversation that needs
// a person.
import { Alert, Group, List, Paper, Stack, Text, Title } from "@mantine/core";
import { errorMessage } from "../../lib/api.ts";
import { fullTime, shortTime } from "../../lib/format.ts";
import { useConversationSummary } from "../../lib/queries/conversations.ts";
import { reasonText } from "./reasons.ts";

export function SummaryPanel({ conversationId }: { conversationId: string }) {
  // Under the conversation's key: whatever refreshes the conversation refreshes its summary.
  const summary = useConversationSummary(conversationId);
  const s = summary.data;
  const reason = reasonText(s?.reason);
  return (
    <Paper
      withBorder
      radius="md"
      p="sm"
      bg="var(--mantine-color-yellow-0)"
      component="section"
      aria-labelledby={`summary-${conversationId}`}
    >
      <Group justify="space-between" gap="xs" mb={4}>
        <Title order={3} size="h5" id={`summary-${conversationId}`}>
          Summary
        </Title>
        {s && (
          <Text size="xs" c="dimmed" title={fullTime(s.createdAt)}>
            Written {shortTime(s.createdAt)}
          </Text>
        )}
      </Group>
      {summary.isPending && (
        <Text size="sm" c="dimmed">
          Writing the summary…
        </Text>
      )}
      {summary.isError && (
        <Alert color="red" role="alert" p="xs">
          The summary could not be loaded: {errorMessage(summary.error)}
        </Alert>
      )}
      {s && (
        <Stack gap={6}>
          {reason && (
            <Text size="sm">
              <Text span fw={600} size="sm">
                Why the bot handed over:
              </Text>{" "}
              {reason}
            </Text>
          )}
          {s.summary ? (
            <Text size="sm" style={{ whiteSpace: "pre-wrap" }}>
              {s.summary}
            </Text>
          ) : (
            <Text size="sm" c="dimmed">
              No written summary: the builtin engine lists the questions it could not answer.
            </Text>
          )}
          {s.unansweredQuestions.length > 0 ? (
            <div>
              <Text size="sm" fw={600} id={`unanswered-${conversationId}`}>
                Questions the bot could not answer
              </Text>
              <List size="sm" aria-labelledby={`unanswered-${conversationId}`}>
                {s.unansweredQuestions.map((q, i) => (
                  // The same question may come twice; the order is the key.
                  // biome-ignore lint/suspicious/noArrayIndexKey: a fixed list, in the customer's order
                  <List.Item key={i} style={{ overflowWrap: "anywhere" }}>
                    {q}
                  </List.Item>
                ))}
              </List>
            </div>
          ) : (
            <Text size="sm" c="dimmed">
              No unanswered questions.
            </Text>
          )}
        </Stack>
      )}
    </Paper>
  );
}
