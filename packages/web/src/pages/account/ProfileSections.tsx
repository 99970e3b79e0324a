// The account page's own parts: the person's display name, and a sub-account's credit balance.
import { Button, Group, Paper, Text, TextInput, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorAlert } from "../../components/States.tsx";
import { errorMessage } from "../../lib/api.ts";
import type { Session } from "../../lib/api-types.ts";
import { credits } from "../../lib/format.ts";
import { notify } from "../../lib/notify.ts";
import { fetchBalance, updateProfile } from "../../lib/queries/auth.ts";
import { useSetSession } from "../../lib/session.ts";

/** "Display name": shown to the team (assignee lists, notes) and on the person's replies. */
export function DisplayNameSection({ session }: { session: Session }) {
  const [name, setName] = useState(session.user.name ?? "");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const setSession = useSetSession();
  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setError(null);
    setBusy(true);
    try {
      setSession(await updateProfile(name.trim() || null));
      notify("Display name saved.");
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="name-heading">
      <Title order={2} size="h4" id="name-heading" mb="sm">
        Your name
      </Title>
      <form onSubmit={submit} noValidate>
        <Group align="flex-end" gap="xs">
          <TextInput
            label="Display name"
            description="Shown to your team and on your replies; empty shows your e-mail address"
            autoComplete="name"
            maxLength={200}
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            style={{ flex: 1 }}
          />
          <Button type="submit" loading={busy}>
            Save name
          </Button>
        </Group>
        <ErrorAlert error={error} mt="sm" />
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
