import { Center, Paper, Stack, Text, Title } from "@mantine/core";
import type { ReactNode } from "react";
import { BrandMark } from "../../components/BrandMark.tsx";
import { usePageBrand } from "../../lib/brand.ts";

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
  // Reached through an agency's own address: its logo and name instead of Parley's.
  const brand = usePageBrand();
  return (
    <Center mih="100vh" p="md" bg="var(--mantine-color-gray-0)">
      <Paper component="main" withBorder shadow="sm" p="xl" radius="md" w="100%" maw={420}>
        <Stack gap="md">
          <Stack gap={4} align="center">
            <BrandMark brand={brand} size={40} />
            {brand && (
              <Text fw={700} size="lg">
                {brand.name}
              </Text>
            )}
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
