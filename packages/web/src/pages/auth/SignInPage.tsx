import { Anchor, Group } from "@mantine/core";
import { useForm } from "@mantine/form";
import { Link, Navigate, useLocation, useNavigate, useSearchParams } from "react-router";
import { PasswordField } from "../../components/PasswordField.tsx";
import { SignInEmailField } from "../../components/PersonFields.tsx";
import { usePageBrand } from "../../lib/brand.ts";
import { signIn } from "../../lib/queries/auth.ts";
import { useSetSession, useSignedInOnArrival } from "../../lib/session.ts";
import { useDocumentTitle } from "../../lib/useDocumentTitle.ts";
import { AuthCard } from "./AuthCard.tsx";
import { AuthForm } from "./AuthForm.tsx";

export function SignInPage() {
  useDocumentTitle("Sign in");
  const location = useLocation();
  // Back from a password reset, the address is already known.
  const form = useForm({
    initialValues: { email: (location.state as { email?: string } | null)?.email ?? "", password: "" },
  });
  const setSession = useSetSession();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const signedIn = useSignedInOnArrival();
  const brand = usePageBrand();
  if (signedIn) return <Navigate to="/dashboard" replace />;

  const send = async ({ email, password }: typeof form.values) => {
    const session = await signIn(email, password);
    setSession(session);
    const next = params.get("next");
    // Only a path inside the app, never another site.
    navigate(next?.startsWith("/") && !next.startsWith("//") ? next : "/dashboard", { replace: true });
  };

  return (
    <AuthCard title={`Sign in to ${brand?.name ?? "Parley"}`}>
      <AuthForm form={form} submitLabel="Sign in" send={send}>
        <SignInEmailField label="Email" {...form.getInputProps("email")} />
        <PasswordField
          label="Password"
          autoComplete="current-password"
          required
          {...form.getInputProps("password")}
        />
        <Group justify="flex-end">
          <Anchor component={Link} to="/forgot-password" state={{ email: form.values.email }} size="sm">
            Forgot password?
          </Anchor>
        </Group>
      </AuthForm>
    </AuthCard>
  );
}
