import { Button, Text, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { Link, useNavigate, useParams } from "react-router";
import { NewPasswordField, newPasswordError } from "../../components/PersonFields.tsx";
import { LoadingState } from "../../components/States.tsx";
import { notify } from "../../lib/notify.ts";
import { acceptInvite, useInvite } from "../../lib/queries/auth.ts";
import { useSetSession } from "../../lib/session.ts";
import { useDocumentTitle } from "../../lib/useDocumentTitle.ts";
import { AuthCard } from "./AuthCard.tsx";
import { AuthForm } from "./AuthForm.tsx";

/**
 * Accepting an invite: the teammate picks a name and a password and is signed in. An address that
 * already signs in to Parley elsewhere gives that password instead; the server then signs the person
 * in to their own account and says why they did not join (`notice`), which only they see.
 */
export function InvitePage() {
  useDocumentTitle("Join your team");
  const { token = "" } = useParams();
  const invite = useInvite(token);
  const form = useForm({
    initialValues: { name: "", password: "" },
    validate: { password: newPasswordError },
    // The message stays until the next try.
    clearInputErrorOnChange: false,
  });
  const setSession = useSetSession();
  const navigate = useNavigate();

  if (invite.isPending) return <LoadingState />;
  if (invite.isError) {
    return (
      <AuthCard title="This invite cannot be used">
        <Text size="sm">
          It may have expired (invites are valid for 7 days), been used already, or been revoked. Ask the
          person who invited you for a new link.
        </Text>
        <Button component={Link} to="/signin" variant="light">
          Go to sign-in
        </Button>
      </AuthCard>
    );
  }

  const send = async ({ name, password }: typeof form.values) => {
    const session = await acceptInvite(token, { ...(name.trim() ? { name: name.trim() } : {}), password });
    const { notice, ...signedIn } = session;
    if (notice) notify(notice, "error");
    setSession(signedIn);
    navigate("/inbox", { replace: true });
  };

  return (
    <AuthCard
      title={`Join ${invite.data.accountName}`}
      intro={`You were invited as ${
        invite.data.role === "owner" ? "the owner" : invite.data.role === "admin" ? "an admin" : "an agent"
      }.`}
    >
      <AuthForm form={form} submitLabel="Join" send={send}>
        <TextInput label="Email" value={invite.data.email} readOnly />
        <TextInput label="Your name" autoComplete="name" {...form.getInputProps("name")} />
        <NewPasswordField
          label="Password"
          description="At least 8 characters. Already use Parley with this address? Enter that password."
          {...form.getInputProps("password")}
        />
      </AuthForm>
    </AuthCard>
  );
}
