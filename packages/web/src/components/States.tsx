import { Alert, type AlertProps, Button, Center, Loader, Stack, Text, Title } from "@mantine/core";
import type { ReactNode } from "react";
import { errorMessage } from "../lib/api.ts";

export function LoadingState({ label = "Loading" }: { label?: string }) {
  return (
    <Center py="xl">
      <Loader role="status" aria-label={label} />
    </Center>
  );
}

export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  return (
    <Alert color="red" title="Could not load this" role="alert">
      <Stack gap="xs" align="flex-start">
        <Text size="sm">{errorMessage(error)}</Text>
        {onRetry && (
          <Button size="xs" variant="light" color="red" onClick={onRetry}>
            Try again
          </Button>
        )}
      </Stack>
    </Alert>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <Stack align="center" gap="xs" py="xl" px="md">
      <Title order={3} size="h4">
        {title}
      </Title>
      {children && (
        <Text c="dimmed" size="sm" ta="center" maw={420}>
          {children}
        </Text>
      )}
    </Stack>
  );
}

/**
 * A failed action's message in a red alert, or nothing while there is none: `error` is a query's or
 * mutation's error (its message is shown) or a message already in words. `children` follow the message.
 */
export function ErrorAlert({
  error,
  children,
  ...alert
}: { error: unknown; children?: ReactNode } & Omit<AlertProps, "children" | "color" | "role">) {
  if (error == null || error === false || error === "") return null;
  return (
    <Alert color="red" role="alert" {...alert}>
      {typeof error === "string" ? error : errorMessage(error)}
      {children}
    </Alert>
  );
}
