// The two pages of Settings: the general settings and the channels.
import { Button, Group } from "@mantine/core";
import { Link, useLocation } from "react-router";

const PAGES = [
  { to: "/settings", label: "General" },
  { to: "/settings/channels", label: "Channels" },
] as const;

export function SettingsNav() {
  const { pathname } = useLocation();
  return (
    <Group component="nav" aria-label="Settings pages" gap="xs">
      {PAGES.map((p) => {
        const current = pathname === p.to;
        return (
          <Button
            key={p.to}
            component={Link}
            to={p.to}
            size="compact-md"
            variant={current ? "filled" : "default"}
            aria-current={current ? "page" : undefined}
          >
            {p.label}
          </Button>
        );
      })}
    </Group>
  );
}
