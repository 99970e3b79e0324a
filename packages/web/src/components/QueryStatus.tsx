import { ErrorState, LoadingState } from "./States.tsx";

/** What a query (plain or paged) offers that its loading and failure need. */
type QueryLike = { isPending: boolean; isError: boolean; error: unknown; refetch: () => unknown };

/**
 * A query's loading spinner (named `loadingLabel`) or its error with "Try again", or nothing once it
 * has data: the part every section that loads something shows before its content.
 */
export function QueryStatus({ query, loadingLabel }: { query: QueryLike; loadingLabel?: string }) {
  if (query.isPending) return <LoadingState label={loadingLabel} />;
  if (query.isError) return <ErrorState error={query.error} onRetry={() => void query.refetch()} />;
  return null;
}
