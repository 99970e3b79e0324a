import {
  ActionIcon,
  Badge,
  Box,
  Button,
  Center,
  Group,
  Loader,
  Popover,
  ScrollArea,
  Stack,
  Text,
  Title,
  UnstyledButton,
  VisuallyHidden,
} from "@mantine/core";
import { useState } from "react";
import { useNavigate } from "react-router";
import { errorMessage } from "../lib/api.ts";
import { shortTime } from "../lib/format.ts";
import {
  type AppNotification,
  bellView,
  useBell,
  useMarkNotificationsRead,
} from "../lib/queries/notifications.ts";
import { LineIcon } from "./LineIcon.tsx";
import { LoadMore } from "./LoadMore.tsx";

function BellIcon() {
  return (
    <LineIcon size={20}>
      <path d="M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9" />
      <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
    </LineIcon>
  );
}

/** Only a path inside the app is followed (never another site). */
function appPath(link: string | null): string | null {
  return link?.startsWith("/") && !link.startsWith("//") ? link : null;
}

function NotificationItem({ item, onOpen }: { item: AppNotification; onOpen: (n: AppNotification) => void }) {
  const unread = !item.readAt;
  return (
    <li>
      <UnstyledButton
        onClick={() => onOpen(item)}
        w="100%"
        px="md"
        py="sm"
        bg={unread ? "var(--mantine-color-blue-0)" : undefined}
        style={{ borderBottom: "1px solid var(--mantine-color-gray-2)" }}
        data-unread={unread || undefined}
      >
        <Group wrap="nowrap" align="flex-start" gap="sm">
          <Box
            aria-hidden="true"
            mt={6}
            w={8}
            h={8}
            style={{
              flex: "none",
              borderRadius: 4,
              background: unread ? "var(--mantine-color-blue-7)" : "transparent",
            }}
          />
          <Box component="span" style={{ minWidth: 0 }}>
            {unread && <VisuallyHidden>Unread: </VisuallyHidden>}
            <Text component="span" display="block" size="sm" fw={unread ? 700 : 500}>
              {item.title}
            </Text>
            {item.body && (
              <Text component="span" display="block" size="sm" c="dimmed" lineClamp={3}>
                {item.body}
              </Text>
            )}
            <Text component="span" display="block" size="xs" c="dimmed" mt={2}>
              {shortTime(item.createdAt)}
            </Text>
          </Box>
        </Group>
      </UnstyledButton>
    </li>
  );
}

/**
 * The bell in the header: the person's notifications, newest first, unread ones marked. Opening one
 * marks it read and goes to what it is about; the list is polled and nudged by the live stream.
 */
export function NotificationBell() {
  const [opened, setOpened] = useState(false);
  const bell = useBell();
  const markRead = useMarkNotificationsRead();
  const navigate = useNavigate();
  const { items, unreadCount } = bellView(bell.data);
  const name = unreadCount > 0 ? `Notifications, ${unreadCount} unread` : "Notifications";

  const open = (item: AppNotification) => {
    if (!item.readAt) markRead.mutate([item.id]);
    const to = appPath(item.link);
    if (to) {
      setOpened(false);
      navigate(to);
    }
  };

  return (
    <Popover opened={opened} onChange={setOpened} position="bottom-end" width={380} shadow="md" trapFocus>
      <Popover.Target>
        <ActionIcon
          variant="subtle"
          color="gray"
          size="lg"
          aria-label={name}
          pos="relative"
          onClick={() => setOpened((o) => !o)}
        >
          <BellIcon />
          {unreadCount > 0 && (
            <Badge
              aria-hidden="true"
              size="xs"
              variant="filled"
              color="red.9"
              px={4}
              style={{ position: "absolute", top: 0, right: 0, pointerEvents: "none" }}
            >
              {unreadCount > 99 ? "99+" : unreadCount}
            </Badge>
          )}
        </ActionIcon>
      </Popover.Target>
      <Popover.Dropdown p={0}>
        <Group justify="space-between" px="md" py="xs" wrap="nowrap">
          <Title order={2} size="h5">
            Notifications
          </Title>
          <Button
            size="compact-sm"
            variant="subtle"
            disabled={unreadCount === 0}
            onClick={() => markRead.mutate(undefined)}
          >
            Mark all as read
          </Button>
        </Group>
        <ScrollArea.Autosize
          mah={440}
          type="auto"
          style={{ borderTop: "1px solid var(--mantine-color-gray-3)" }}
        >
          {bell.isPending && (
            <Center py="lg">
              <Loader size="sm" role="status" aria-label="Loading notifications" />
            </Center>
          )}
          {bell.isError && (
            <Text size="sm" c="red.8" p="md" role="alert">
              {errorMessage(bell.error)}
            </Text>
          )}
          {bell.isSuccess && items.length === 0 && (
            <Text size="sm" c="dimmed" p="lg" ta="center">
              No notifications yet
            </Text>
          )}
          {items.length > 0 && (
            <Box component="ul" aria-label="Notifications" m={0} p={0} style={{ listStyle: "none" }}>
              {items.map((item) => (
                <NotificationItem key={item.id} item={item} onOpen={open} />
              ))}
            </Box>
          )}
          {bell.hasNextPage && (
            <Stack p="xs" align="center">
              <LoadMore pages={bell} size="compact-sm">
                Show older
              </LoadMore>
            </Stack>
          )}
        </ScrollArea.Autosize>
      </Popover.Dropdown>
    </Popover>
  );
}
