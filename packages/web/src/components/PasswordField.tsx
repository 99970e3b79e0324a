import { PasswordInput, type PasswordInputProps } from "@mantine/core";

/**
 * Mantine's PasswordInput, with a show/hide toggle whose accessible name does not contain "password":
 * otherwise the field's own label ("Password") would also name the toggle for label look-ups.
 */
export function PasswordField(props: PasswordInputProps) {
  return <PasswordInput {...props} visibilityToggleButtonProps={{ "aria-label": "Show the characters" }} />;
}
