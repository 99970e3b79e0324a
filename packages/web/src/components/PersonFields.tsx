// The fields about the person, the same wherever they are asked: their address, a new password, their name.
import { type PasswordInputProps, TextInput, type TextInputProps } from "@mantine/core";
import { PasswordField } from "./PasswordField.tsx";

/** The address a person signs in with: required, and the browser offers the one it saved. */
export function SignInEmailField(props: TextInputProps) {
  return <TextInput type="email" autoComplete="username" required {...props} />;
}

/** A password the person chooses now: required, and the browser may suggest a strong one. */
/** The rule for a password a person chooses (the server's too): the field's error, or null. */
export function newPasswordError(password: string): string | null {
  return password.length >= 8 ? null : "Use at least 8 characters";
}

export function NewPasswordField(props: PasswordInputProps) {
  return <PasswordField autoComplete="new-password" required {...props} />;
}

/** The name the team sees (assignee lists, notes, replies): the browser offers the person's own. */
export function DisplayNameField(props: TextInputProps) {
  return <TextInput autoComplete="name" maxLength={200} {...props} />;
}
