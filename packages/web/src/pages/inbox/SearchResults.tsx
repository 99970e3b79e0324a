// The inbox's search results (issue 33): while the search box has text, each matching conversation
// with its contact and the matching message's snippet, the words marked; a hit opens the
// conversation at that message (?message=, which the thread scrolls to and highlights).
import { Box, Text, UnstyledButton } from "@mantine/core";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { LoadMore } from "../../components/LoadMore.tsx";
import { PlainList } from "../../components/PlainList.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../components/States.tsx";
import type { Conversation } from "../../lib/api-types.ts";
import { contactLabel, shortTime } from "../../lib/format.ts";
import { useConversations } from "../../lib/queries/conversations.ts";

/** Why a conversation matched: its newest matching message, or null when the contact did. */
export interface SearchMatch {
  messageId: string;
  snippet: string;
  /** [start, end) offsets into snippet of each matched word. */
  highlights: number[][];
}

type SearchHit = Conversation & { match?: SearchMatch | null };

/** The snippet with each matched word in <mark>. */
export function Highlighted({ match }: { match: SearchMatch }): ReactNode {
  const parts: ReactNode[] = [];
  let at = 0;
  for (const [start = 0, end = 0] of match.highlights) {
    if (start < at || end <= start) continue;
    parts.push(match.snippet.slice(at, start));
    parts.push(<mark key={start}>{match.snippet.slice(start, end)}</mark>);
    at = end;
  }
  parts.push(match.snippet.slice(at));
  return parts;
}

export function SearchResults({
  filters,
  search,
  selectedId,
}: {
  /** The list's query, q included (the same cache entry as the list). */
  filters: URLSearchParams;
  /** The page's own query string, kept on the links. */
  search: string;
  selectedId: string | null;
}) {
  const list = useConversations(filters);
  const hits: SearchHit[] = list.data?.pages.flatMap((p) => p.data) ?? [];
  const linkTo = (hit: SearchHit) => {
    const next = new URLSearchParams(search);
    if (hit.match) next.set("message", hit.match.messageId);
    else next.delete("message");
    return `/inbox/${hit.id}?${next}`;
  };
  return (
    // A plain scroller, as the list's (Mantine's ScrollArea grows rows to their text's width).
    <Box mah="calc(100vh - 360px)" mt="sm" style={{ overflowY: "auto", overflowX: "hidden" }}>
      {list.isPending && <LoadingState label="Searching" />}
      {list.isError && <ErrorState error={list.error} onRetry={() => void list.refetch()} />}
      {list.data && hits.length === 0 && (
        <EmptyState title="No conversation matches">Try other words or other filters.</EmptyState>
      )}
      <PlainList gap={4} aria-label="Search results">
        {hits.map((hit) => (
          <li key={hit.id}>
            <UnstyledButton
              component={Link}
              to={linkTo(hit)}
              aria-current={hit.id === selectedId ? "page" : undefined}
              display="block"
              p="xs"
              w="100%"
              style={{
                borderRadius: "var(--mantine-radius-sm)",
                background: hit.id === selectedId ? "var(--mantine-color-blue-light)" : undefined,
              }}
            >
              <Text fw={600} size="sm" truncate>
                {contactLabel(hit.contact)}
              </Text>
              {hit.match ? (
                <Text size="sm" c="dimmed" lineClamp={2} data-testid="search-snippet">
                  <Highlighted match={hit.match} />
                </Text>
              ) : (
                <Text size="sm" c="dimmed">
                  Contact details match
                  {hit.lastMessageAt ? ` · last message ${shortTime(hit.lastMessageAt)}` : ""}
                </Text>
              )}
            </UnstyledButton>
          </li>
        ))}
      </PlainList>
      <LoadMore pages={list} fullWidth mt="xs">
        More results
      </LoadMore>
    </Box>
  );
}
