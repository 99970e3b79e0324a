import { Button, Code, CopyButton, Group } from "@mantine/core";
import type { ReactNode } from "react";

/**
 * A value to paste elsewhere (an API key, a snippet, a webhook URL, an invite link, a signing secret),
 * in a code block that wraps anywhere, beside its copy button ("Copied" for a moment after a click)
 * and any further buttons (`children`).
 */
export function CopyableCode({
  value,
  copyLabel,
  testId,
  children,
}: {
  value: string;
  /** The copy button's name until it has copied. */
  copyLabel: string;
  testId?: string;
  children?: ReactNode;
}) {
  return (
    <Group gap="xs" wrap="nowrap" align="center">
      <Code block style={{ flex: 1, wordBreak: "break-all", whiteSpace: "pre-wrap" }} data-testid={testId}>
        {value}
      </Code>
      <CopyButton value={value}>
        {({ copied, copy }) => (
          <Button size="xs" variant="light" color={copied ? "teal" : "blue"} onClick={copy}>
            {copied ? "Copied" : copyLabel}
          </Button>
        )}
      </CopyButton>
      {children}
    </Group>
  );
}
