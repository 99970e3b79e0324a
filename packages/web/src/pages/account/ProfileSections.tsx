// The account page's own parts: the person's display name, and a sub-account's credit balance.
import { Button, Group, Paper, Text, Title } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useMutation, useQuery } from "@tanstack/react-query";
import { DisplayNameField } from "../../components/PersonFields.tsx";
import { ErrorAlert } from "../../components/States.tsx";
import { errorMessage } from "../../lib/api.ts";
import type { Session } from "../../lib/api-types.ts";
import { credits } from "../../lib/format.ts";
import { notify } from "../../lib/notify.ts";
import { fetchBalance, updateProfile } from "../../lib/queries/auth.ts";
import { useSetSession } from "../../lib/session.ts";

/** "Display name": shown to the team (assignee lists, notes) and on the person's replies. */
export function DisplayNameSection({ session }: { session: Session }) {
  const form = useForm({ initialValues: { name: session.user.name ?? "" } });
  const setSession = useSetSession();
  const save = useMutation({
    mutationFn: ({ name }: typeof form.values) => updateProfile(name.trim() || null),
    onSuccess: (updated) => {
      setSession(updated);
      notify("Display name saved.");
    },
  });
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="name-heading">
      <Title order={2} size="h4" id="name-heading" mb="sm">
        Your name
      </Title>
      <form onSubmit={form.onSubmit((values) => save.mutate(values))} noValidate>
        <Group align="flex-end" gap="xs">
          <DisplayNameField
            label="Display name"
            description="Shown to your team and on your replies; empty shows your e-mail address"
            {...form.getInputProps("name")}
            style={{ flex: 1 }}
          />
          <Button type="submit" loading={save.isPending}>
            Save name
          </Button>
        </Group>
        <ErrorAlert error={save.error} mt="sm" />
      </form>
    </Paper>
  );
}

/** A sub-account's balance: what its agency granted, less what the bot's replies used. */
export function CreditsSection() {
  const balance = useQuery({ queryKey: ["credits", "balance"], queryFn: fetchBalance, staleTime: 30_000 });
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="credits-heading">
      <Title order={2} size="h4" id="credits-heading" mb="xs">
        Credits
      </Title>
      {balance.isError ? (
        <Text size="sm" c="red.9" role="alert">
          The balance could not be loaded: {errorMessage(balance.error)}
        </Text>
      ) : (
        <Text size="sm">
          Balance: <strong>{balance.data ? credits(balance.data.balance) : "…"}</strong> credits. Your agency
          tops it up; the bot's replies use it.
        </Text>
      )}
    </Paper>
  );
}
