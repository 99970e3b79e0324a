import { AppShell, Burger, Button, Group, Menu, NavLink, Stack, Text, UnstyledButton } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useQueryClient } from "@tanstack/react-query";
import { Link, Outlet, useLocation, useNavigate } from "react-router";
import { useInboxAlerts } from "../lib/alerts.ts";
import type { Session } from "../lib/api-types.ts";
import { useLiveUpdates } from "../lib/live.ts";
import { signOut as endSession } from "../lib/queries/auth.ts";
import { canManage, useSetSession } from "../lib/session.ts";
import { AssistBanner } from "./AssistBanner.tsx";
import { BrandMark, BrandName } from "./BrandMark.tsx";
import { ClientSwitcher } from "./ClientSwitcher.tsx";
import { NotificationBell } from "./NotificationBell.tsx";

const NAV = [
  { to: "/dashboard", label: "Dashboard" },
  { to: "/inbox", label: "Inbox" },
  { to: "/contacts", label: "Contacts" },
  { to: "/lists", label: "Lists" },
  { to: "/campaigns", label: "Campaigns" },
] as const;

export function AppLayout({ session }: { session: Session }) {
  const [opened, { toggle, close }] = useDisclosure();
  const location = useLocation();
  const navigate = useNavigate();
  const setSession = useSetSession();
  const queryClient = useQueryClient();
  useLiveUpdates(true);
  // The unread count in the tab title, and the person's alerts.
  useInboxAlerts(session.user.id);

  const signOut = async () => {
    try {
      await endSession();
    } finally {
      queryClient.clear();
      setSession(null);
      navigate("/signin", { replace: true });
    }
  };

  const links = [
    ...NAV,
    ...(session.account.kind === "agency" ? [{ to: "/agency", label: "Agency" }] : []),
    ...(canManage(session) ? [{ to: "/settings", label: "Settings" }] : []),
  ];

  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 220, breakpoint: "sm", collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger
              opened={opened}
              onClick={toggle}
              hiddenFrom="sm"
              size="sm"
              aria-label="Toggle navigation"
            />
            <BrandMark brand={session.brand} size={28} />
            <BrandName brand={session.brand} />
            <Text c="dimmed" size="sm" visibleFrom="xs" truncate>
              {session.account.name}
            </Text>
          </Group>
          <Group gap="xs" wrap="nowrap">
            {(session.assist || (session.account.kind === "agency" && canManage(session))) && (
              <ClientSwitcher session={session} />
            )}
            <NotificationBell />
            <Menu position="bottom-end" withinPortal>
              <Menu.Target>
                <UnstyledButton>
                  <Stack gap={0} align="flex-end">
                    <Text size="sm" fw={500} truncate maw={220}>
                      {session.user.name ?? session.user.email}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {session.user.role}
                    </Text>
                  </Stack>
                </UnstyledButton>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Item component={Link} to="/account">
                  Your profile and password
                </Menu.Item>
                <Menu.Item onClick={() => void signOut()}>Sign out</Menu.Item>
              </Menu.Dropdown>
            </Menu>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="sm" aria-label="Main">
        <Stack gap={4} style={{ flex: 1 }}>
          {links.map((link) => (
            <NavLink
              key={link.to}
              component={Link}
              to={link.to}
              label={link.label}
              variant="filled"
              active={location.pathname === link.to || location.pathname.startsWith(`${link.to}/`)}
              onClick={close}
            />
          ))}
        </Stack>
        <Button variant="subtle" color="gray" onClick={() => void signOut()}>
          Sign out
        </Button>
      </AppShell.Navbar>
      <AppShell.Main>
        {session.assist && <AssistBanner assist={session.assist} />}
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
