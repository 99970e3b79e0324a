import { Box, Grid, Title } from "@mantine/core";
import { useParams } from "react-router";
import { EmptyState } from "../../components/States.tsx";
import type { Session } from "../../lib/types.ts";
import { ConversationList } from "./ConversationList.tsx";
import { ConversationView } from "./ConversationView.tsx";

/** The inbox: conversations on the left, the open one on the right; both follow live updates. */
export function InboxPage({ session }: { session: Session }) {
  const { conversationId } = useParams();
  return (
    <>
      <Title order={1} size="h2" mb="sm">
        Inbox
      </Title>
      <Grid gap="md">
        <Grid.Col
          span={{ base: 12, md: 5, lg: 4 }}
          display={{ base: conversationId ? "none" : "block", md: "block" }}
        >
          <ConversationList session={session} selectedId={conversationId ?? null} />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 7, lg: 8 }}>
          {conversationId ? (
            <ConversationView key={conversationId} conversationId={conversationId} session={session} />
          ) : (
            <Box visibleFrom="md">
              <EmptyState title="Pick a conversation">
                Messages posted to your custom channel appear here as they arrive, with the bot's and your
                team's replies and whether each was delivered.
              </EmptyState>
            </Box>
          )}
        </Grid.Col>
      </Grid>
    </>
  );
}
