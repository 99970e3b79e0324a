import { Box, Button, Grid, Group, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useLocation, useNavigate, useParams } from "react-router";
import { EmptyState } from "../../components/States.tsx";
import type { Session } from "../../lib/api-types.ts";
import { useDocumentTitle } from "../../lib/useDocumentTitle.ts";
import { WithContactPanel } from "./ContactPanel.tsx";
import { ConversationList } from "./ConversationList.tsx";
import { ConversationView } from "./ConversationView.tsx";
import { ShortcutsHelp } from "./ShortcutsHelp.tsx";
import { useInboxShortcuts } from "./useInboxShortcuts.ts";

/**
 * The inbox: conversations on the left, the open one on the right; both follow live updates. On a
 * phone (below `sm`) they are two screens: the list, or the open conversation with a way back.
 */
export function InboxPage({ session }: { session: Session }) {
  const { conversationId } = useParams();
  useDocumentTitle(conversationId ? null : "Inbox");
  const { search } = useLocation();
  const navigate = useNavigate();
  const [helpOpen, help] = useDisclosure(false);
  useInboxShortcuts({ session, conversationId: conversationId ?? null, helpOpen, openHelp: help.open });
  return (
    <>
      <Group justify="space-between" mb="sm" wrap="nowrap">
        <Title order={1} size="h2">
          Inbox
        </Title>
        <ShortcutsHelp opened={helpOpen} onOpen={help.open} onClose={help.close} />
      </Group>
      <Grid gap="md">
        <Grid.Col
          span={{ base: 12, sm: 5, lg: 4 }}
          display={{ base: conversationId ? "none" : "block", sm: "block" }}
          miw={0}
        >
          <ConversationList session={session} selectedId={conversationId ?? null} />
        </Grid.Col>
        <Grid.Col
          span={{ base: 12, sm: 7, lg: 8 }}
          display={{ base: conversationId ? "block" : "none", sm: "block" }}
          miw={0}
        >
          {conversationId ? (
            <>
              {/* The filters stay as they were (they live in the address). */}
              <Button
                onClick={() => void navigate(`/inbox${search}`)}
                variant="subtle"
                size="xs"
                mb="xs"
                hiddenFrom="sm"
              >
                Back to conversations
              </Button>
              <WithContactPanel key={conversationId} conversationId={conversationId}>
                <ConversationView conversationId={conversationId} session={session} />
              </WithContactPanel>
            </>
          ) : (
            <Box visibleFrom="sm">
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
