import { Alert, Anchor, Button, Group, Stack, TextInput } from "@mantine/core";
import { useState } from "react";
import { Link, Navigate, useLocation, useNavigate, useSearchParams } from "react-router";
import { PasswordField } from "../../components/PasswordField.tsx";
import { api, errorMessage } from "../../lib/api.ts";
import { useSetSession, useSignedInOnArrival } from "../../lib/session.ts";
import type { Session } from "../../lib/types.ts";
import { AuthCard } from "./AuthCard.tsx";

export function SignInPage() {
  const location = useLocation();
  // Back from a password reset, the address is already known.
  const [email, setEmail] = useState(() => (location.state as { email?: string } | null)?.email ?? "");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const setSession = useSetSession();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const signedIn = useSignedInOnArrival();
  if (signedIn) return <Navigate to="/dashboard" replace />;

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const session = await api<Session>("POST", "/session", { email, password });
      setSession(session);
      const next = params.get("next");
      // Only a path inside the app, never another site.
      navigate(next?.startsWith("/") && !next.startsWith("//") ? next : "/dashboard", { replace: true });
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <AuthCard title="Sign in to Parley">
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          {error && (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          )}
          <TextInput
            label="Email"
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
          />
          <PasswordField
            label="Password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
          />
          <Group justify="flex-end">
            <Anchor component={Link} to="/forgot-password" state={{ email }} size="sm">
              Forgot password?
            </Anchor>
          </Group>
          <Button type="submit" loading={busy} fullWidth mt="xs">
            Sign in
          </Button>
        </Stack>
      </form>
    </AuthCard>
  );
}
