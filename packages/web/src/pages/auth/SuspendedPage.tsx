import { Button, Text } from "@mantine/core";
import { useState } from "react";
import { useNavigate } from "react-router";
import { signOut } from "../../lib/queries/auth.ts";
import { useSetSession } from "../../lib/session.ts";
import { useDocumentTitle } from "../../lib/useDocumentTitle.ts";
import { AuthCard } from "./AuthCard.tsx";

/** What a suspended sub-account's people see instead of the app, whatever page they open. */
export function SuspendedPage() {
  useDocumentTitle("Account suspended");
  const setSession = useSetSession();
  const navigate = useNavigate();
  const [leaving, setLeaving] = useState(false);
  const leave = async () => {
    setLeaving(true);
    try {
      await signOut();
    } finally {
      setSession(null);
      navigate("/signin", { replace: true });
    }
  };
  return (
    <AuthCard title="This account is suspended">
      <Text size="sm">
        Your agency suspended this account. Nothing in it was deleted: messages from your customers are still
        received. Ask your agency to resume it.
      </Text>
      <Button variant="default" loading={leaving} onClick={() => void leave()}>
        Sign out
      </Button>
    </AuthCard>
  );
}
