import { Button, Title } from "@mantine/core";
import { Link } from "react-router";
import { EmptyState } from "../../components/States.tsx";
import { useDocumentTitle } from "../../lib/useDocumentTitle.ts";

/** Any address the app has no page for. */
export function NotFoundPage() {
  useDocumentTitle("Page not found");
  return (
    <>
      <Title order={1} size="h2" mb="md">
        Page not found
      </Title>
      <EmptyState title="There is nothing at this address">The link may be old or mistyped.</EmptyState>
      <Button component={Link} to="/inbox" variant="light" display="block" mx="auto" w="fit-content">
        Go to the inbox
      </Button>
    </>
  );
}
