// The button under a list that reads on (an infinite query's next page); nothing once all is shown.
import { Button, type ButtonProps } from "@mantine/core";
import type { ReactNode } from "react";

export function LoadMore({
  pages,
  children = "Load more",
  ...button
}: {
  pages: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => Promise<unknown> };
  children?: ReactNode;
} & Omit<ButtonProps, "loading" | "children">) {
  if (!pages.hasNextPage) return null;
  return (
    <Button
      variant="subtle"
      {...button}
      loading={pages.isFetchingNextPage}
      onClick={() => void pages.fetchNextPage()}
    >
      {children}
    </Button>
  );
}
