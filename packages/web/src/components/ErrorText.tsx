import { Text, type TextProps } from "@mantine/core";
import { errorMessage } from "../lib/api.ts";

/**
 * A failed action's message as a line of red text (ErrorAlert's quieter sibling, for a switch or a
 * button that has no room for a box), or nothing while there is none.
 */
export function ErrorText({ error, ...text }: { error: unknown } & Omit<TextProps, "children">) {
  if (error == null || error === false || error === "") return null;
  return (
    <Text size="sm" c="red" role="alert" {...text}>
      {typeof error === "string" ? error : errorMessage(error)}
    </Text>
  );
}
