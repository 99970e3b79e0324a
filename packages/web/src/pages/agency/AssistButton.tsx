// "Assist" on a client's row and page: the agency's owner or admin works inside that client's
// account from this browser (the banner says so; every change goes into the client's audit log).
import { Button } from "@mantine/core";
import type { Subaccount } from "../../lib/api-types.ts";
import { useStartAssist } from "../../lib/queries/assist.ts";

export function AssistButton({ sub, size = "xs" }: { sub: Subaccount; size?: "xs" | "sm" }) {
  const start = useStartAssist();
  return (
    <Button
      size={size}
      variant="light"
      loading={start.isPending}
      disabled={sub.status === "suspended"}
      onClick={() => start.mutate(sub.id)}
    >
      Assist
    </Button>
  );
}
