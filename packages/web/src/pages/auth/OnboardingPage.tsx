import { Alert, Button, Stack, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useState } from "react";
import { Navigate, useNavigate, useSearchParams } from "react-router";
import { NewApiKey } from "../../components/NewApiKey.tsx";
import {
  DisplayNameField,
  NewPasswordField,
  newPasswordError,
  SignInEmailField,
} from "../../components/PersonFields.tsx";
import { LoadingState } from "../../components/States.tsx";
import { ApiError } from "../../lib/api.ts";
import { onboard, useOnboardingStatus } from "../../lib/queries/auth.ts";
import { useSetSession, useSignedInOnArrival } from "../../lib/session.ts";
import { useDocumentTitle } from "../../lib/useDocumentTitle.ts";
import { AuthCard } from "./AuthCard.tsx";
import { AuthForm } from "./AuthForm.tsx";

type Values = { businessName: string; name: string; email: string; password: string };

const checks = {
  businessName: (v: string) => (v.trim() ? null : "Enter your business name"),
  email: (v: string) => (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v.trim()) ? null : "Enter a valid email address"),
  password: newPasswordError,
};

/** The one-time form of a fresh install: creates the account and its owner. */
export function OnboardingPage() {
  useDocumentTitle("Set up Parley");
  const [params] = useSearchParams();
  const setupToken = params.get("setupToken") ?? undefined;
  const status = useOnboardingStatus(setupToken ?? null);
  const form = useForm<Values>({
    initialValues: { businessName: "", name: "", email: "", password: "" },
    validate: checks,
    // The messages stay until the next try.
    clearInputErrorOnChange: false,
  });
  // The account's first API key, from the onboarding answer: shown here once, to copy.
  const [apiKey, setApiKey] = useState<string | null>(null);
  const setSession = useSetSession();
  const navigate = useNavigate();
  const signedIn = useSignedInOnArrival();

  if (apiKey)
    return <FirstApiKey apiKey={apiKey} onContinue={() => navigate("/settings", { replace: true })} />;
  if (signedIn) return <Navigate to="/inbox" replace />;
  if (status.isPending) return <LoadingState />;
  if (status.data && !status.data.needed) return <Navigate to="/signin" replace />;

  const send = async (values: Values) => {
    try {
      const session = await onboard({
        businessName: values.businessName.trim(),
        ...(values.name.trim() ? { name: values.name.trim() } : {}),
        email: values.email.trim(),
        password: values.password,
        ...(setupToken ? { setupToken } : {}),
      });
      const { apiKey: key, ...signedInSession } = session;
      setSession(signedInSession);
      setApiKey(key);
    } catch (err) {
      if (err instanceof ApiError && err.code === "ALREADY_ONBOARDED") {
        navigate("/signin", { replace: true });
        return;
      }
      throw err;
    }
  };

  return (
    <AuthCard
      title="Welcome to Parley"
      intro="Create your business account. You will be its owner and can invite your team afterwards."
    >
      {status.data && !status.data.allowed && (
        <Alert color="yellow" title="Open the setup link" role="alert">
          For safety, a new install can be set up only from the server itself or with the one-time setup link
          that Parley printed when it started (look for setupUrl in its output).
        </Alert>
      )}
      <AuthForm form={form} submitLabel="Create account" send={send}>
        <TextInput
          label="Business name"
          autoComplete="organization"
          required
          {...form.getInputProps("businessName")}
        />
        <DisplayNameField
          label="Your name"
          description="Shown to your team and on your replies"
          {...form.getInputProps("name")}
        />
        <SignInEmailField label="Email" {...form.getInputProps("email")} />
        <NewPasswordField
          label="Password"
          description="At least 8 characters"
          {...form.getInputProps("password")}
        />
      </AuthForm>
    </AuthCard>
  );
}

/** After onboarding: the account's API key, shown once with a copy button, then on to Settings. */
function FirstApiKey({ apiKey, onContinue }: { apiKey: string; onContinue: () => void }) {
  return (
    <AuthCard
      title="Your account is ready"
      intro="Your systems use this API key to call the Parley API (/v1). Keep it on your server; never put it in a web page or an app."
    >
      <Stack gap="sm">
        <NewApiKey
          apiKey={apiKey}
          title="Your API key"
          note="Copy it now: it is shown only once. You can generate a new one in Settings at any time."
        />
        <Button onClick={onContinue} fullWidth data-autofocus>
          Continue to settings
        </Button>
      </Stack>
    </AuthCard>
  );
}
