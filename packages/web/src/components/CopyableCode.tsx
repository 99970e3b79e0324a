import { Button, Code, CopyButton, Group } from "@mantine/core";

/**
 * A value to paste elsewhere (an API key, a snippet, a webhook URL), in a code block that wraps anywhere,
 * beside its copy button ("Copied" for a moment after a click).
 */
export function CopyableCode({
  value,
  copyLabel,
  testId,
}: {
  value: string;
  copyLabel: string;
  testId: string;
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
    </Group>
  );
}
