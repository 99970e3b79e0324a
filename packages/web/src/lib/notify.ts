import { notifications } from "@mantine/notifications";

/** A short-lived message in the corner; its close button has a name (screen readers, axe). */
export function notify(message: string, tone: "success" | "error" = "success"): void {
  notifications.show({
    color: tone === "success" ? "green" : "red",
    message,
    closeButtonProps: { "aria-label": "Dismiss" },
  });
}
