// "Suggest other ways to ask": the LLM's proposals for one knowledge entry, as checkboxes (none ticked:
// the person picks the ones customers would really write); "Keep selected" adds them to the entry's
// other ways to ask in the editor's draft, saved with the campaign as usual.
import { Checkbox, Group, Loader, Stack, Text } from "@mantine/core";
import { useState } from "react";
import { FormModal } from "../../components/FormModal.tsx";

export function PhrasingsModal(props: {
  opened: boolean;
  onClose: () => void;
  /** 1-based, as the editor numbers entries. */
  entryNumber: number;
  question: string;
  /** How many more other ways to ask the entry can take (20 at most in all). */
  room: number;
  pending: boolean;
  error: unknown;
  phrasings: string[] | undefined;
  onKeep: (kept: string[]) => void;
}) {
  const [selected, setSelected] = useState<string[]>([]);
  const tooMany = selected.length > props.room;
  return (
    <FormModal
      opened={props.opened}
      onClose={props.onClose}
      title="Other ways to ask"
      submitLabel="Keep selected"
      submitDisabled={props.pending || selected.length === 0 || tooMany}
      onSubmit={() => props.onKeep(selected)}
      error={props.error}
      errorTitle="No suggestions"
      size="lg"
    >
      <Text size="sm">
        Entry {props.entryNumber}: <q>{props.question}</q>
      </Text>
      {props.pending && (
        <Group gap="xs">
          <Loader size="sm" role="status" aria-label="Loading suggestions" />
          <Text size="sm" c="dimmed">
            Asking the LLM how customers might put it…
          </Text>
        </Group>
      )}
      {props.phrasings && props.phrasings.length === 0 && (
        <Text size="sm" c="dimmed">
          The LLM proposed nothing new for this question. Type other ways to ask by hand, or try again later.
        </Text>
      )}
      {props.phrasings && props.phrasings.length > 0 && (
        <Checkbox.Group
          label="Proposals"
          description="Tick the ones your customers would write. They are added to this entry's other ways to ask; save the campaign to keep them."
          value={selected}
          onChange={setSelected}
        >
          <Stack gap={6} mt="xs">
            {props.phrasings.map((p) => (
              <Checkbox key={p} value={p} label={p} />
            ))}
          </Stack>
        </Checkbox.Group>
      )}
      {tooMany && (
        <Text size="sm" c="red.8" role="alert">
          {props.room === 0
            ? "This entry already has 20 other ways to ask: remove some first."
            : `This entry has room for ${props.room} more (20 at most): untick ${selected.length - props.room}.`}
        </Text>
      )}
    </FormModal>
  );
}
