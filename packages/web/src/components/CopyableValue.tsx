import { Button, Code, CopyButton, Group } from "@mantine/core";
import type { ReactNode } from "react";

/**
 * A value the person copies elsewhere (an invite link, a signing secret): shown in full, broken
 * anywhere, with its copy button and any further buttons (`children`) beside it.
 */
export function CopyableValue({
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
    <Group gap="xs" wrap="nowrap">
      <Code block style={{ flex: 1, wordBreak: "break-all" }} data-testid={testId}>
        {value}
      </Code>
      <CopyButton value={value}>
        {({ copied, copy }) => (
          <Button size="xs" variant="light" onClick={copy}>
            {copied ? "Copied" : copyLabel}
          </Button>
        )}
      </CopyButton>
      {children}
    </Group>
  );
}
