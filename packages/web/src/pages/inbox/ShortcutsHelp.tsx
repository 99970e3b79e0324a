import { Button, Kbd, Modal, Table, Text } from "@mantine/core";

/** What each inbox key does; the help dialog and docs/web.md say the same. */
export const INBOX_SHORTCUTS: { keys: string[]; action: string }[] = [
  { keys: ["j"], action: "Open the next conversation in the list" },
  { keys: ["k"], action: "Open the previous conversation in the list" },
  { keys: ["/"], action: "Search conversations" },
  { keys: ["r"], action: "Write a reply in the open conversation" },
  { keys: ["Ctrl", "Enter"], action: "Send the reply (in the reply box)" },
  { keys: ["e"], action: "Resolve the open conversation" },
  { keys: ["a"], action: "Assign the open conversation to you" },
  { keys: ["Esc"], action: "Leave the text box; again: back to the list" },
  { keys: ["?"], action: "Show these shortcuts" },
];

/** The header's "Keyboard shortcuts" button and its dialog (also opened by "?"). */
export function ShortcutsHelp({
  opened,
  onOpen,
  onClose,
}: {
  opened: boolean;
  onOpen: () => void;
  onClose: () => void;
}) {
  return (
    <>
      <Button variant="subtle" size="xs" onClick={onOpen} aria-keyshortcuts="?">
        Keyboard shortcuts
      </Button>
      <Modal
        opened={opened}
        onClose={onClose}
        title="Keyboard shortcuts"
        closeButtonProps={{ "aria-label": "Close" }}
      >
        <Text size="sm" mb="xs">
          Single keys work when you are not typing in a text box.
        </Text>
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Key</Table.Th>
              <Table.Th scope="col">What it does</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {INBOX_SHORTCUTS.map(({ keys, action }) => (
              <Table.Tr key={action}>
                <Table.Td>
                  {keys.map((key, i) => (
                    <span key={key}>
                      {i > 0 && " + "}
                      <Kbd>{key}</Kbd>
                    </span>
                  ))}
                </Table.Td>
                <Table.Td>{action}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Modal>
    </>
  );
}
