import { Center, Paper, Stack, Text, Title } from "@mantine/core";
import type { ReactNode } from "react";

/** The frame of the signed-out pages: onboarding, sign-in, accepting an invite. */
export function AuthCard({
  title,
  intro,
  children,
}: {
  title: string;
  intro?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Center mih="100vh" p="md" bg="var(--mantine-color-gray-0)">
      <Paper component="main" withBorder shadow="sm" p="xl" radius="md" w="100%" maw={420}>
        <Stack gap="md">
          <Stack gap={4} align="center">
            <img src="/favicon.svg" alt="" width={40} height={40} />
            <Title order={1} size="h2" ta="center">
              {title}
            </Title>
            {intro && (
              <Text c="dimmed" size="sm" ta="center">
                {intro}
              </Text>
            )}
          </Stack>
          {children}
        </Stack>
      </Paper>
    </Center>
  );
}
