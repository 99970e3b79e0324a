import { Button, Title } from "@mantine/core";
import { Link } from "react-router";
import { EmptyState } from "../../components/States.tsx";

/** Pages that part 2 of the web app fills (contacts, lists, campaigns, agency, dashboard). */
export function ComingSoonPage({ title, notFound = false }: { title: string; notFound?: boolean }) {
  return (
    <>
      <Title order={1} size="h2" mb="md">
        {title}
      </Title>
      <EmptyState title={notFound ? "There is nothing at this address" : `${title} is coming soon`}>
        {notFound
          ? "The link may be old or mistyped."
          : "This page is not built yet. Until then the same data is available through the API (see /docs)."}
      </EmptyState>
      <Button component={Link} to="/inbox" variant="light" display="block" mx="auto" w="fit-content">
        Go to the inbox
      </Button>
    </>
  );
}
