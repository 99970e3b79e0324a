// Selecting conversations in the inbox list (a checkbox per row, "Select all shown") and acting on the
// selection in one call each: assign, resolve, label (the conversations' contacts). The result is said
// ("3 conversations resolved") and the selection cleared.
import { Box, Button, Checkbox, Select, Stack } from "@mantine/core";
import { type ReactNode, useState } from "react";
import { BulkLabelDialog, BulkToolbar } from "../../components/BulkToolbar.tsx";
import { FormModal } from "../../components/FormModal.tsx";
import type { Conversation } from "../../lib/api-types.ts";
import { contactLabel } from "../../lib/format.ts";
import { notify } from "../../lib/notify.ts";
import { useBulkConversations } from "../../lib/queries/conversations.ts";
import { useTeam } from "../../lib/queries/team.ts";

export interface ConversationSelection {
  selected: ReadonlySet<string>;
  set(ids: string[], on: boolean): void;
  clear(): void;
}

export function useConversationSelection(): ConversationSelection {
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  return {
    selected,
    set: (ids, on) =>
      setSelected((before) => {
        const next = new Set(before);
        for (const id of ids) {
          if (on) next.add(id);
          else next.delete(id);
        }
        return next;
      }),
    clear: () => setSelected(new Set()),
  };
}

/**
 * A row of the list (its `li`) with the checkbox beside the row's link (a checkbox inside the link would
 * be a control in a control); the link stays the item's own child, which the keyboard shortcuts read.
 */
export function SelectableConversation(props: {
  conversation: Conversation;
  selection: ConversationSelection;
  children: ReactNode;
}) {
  const { conversation: c, selection } = props;
  return (
    <Box component="li" style={{ display: "flex", gap: 6, alignItems: "flex-start", minWidth: 0 }}>
      <Checkbox
        mt={10}
        size="xs"
        style={{ flexShrink: 0 }}
        aria-label={`Select conversation with ${contactLabel(c.contact)}`}
        checked={selection.selected.has(c.id)}
        onChange={(e) => selection.set([c.id], e.currentTarget.checked)}
      />
      {props.children}
    </Box>
  );
}

const plural = (n: number) => `${n} ${n === 1 ? "conversation" : "conversations"}`;

type Dialog = "assign" | "label" | null;

/**
 * Above the list: "Select all shown", and while something is selected the toolbar. Only what is shown
 * counts: a filter that hides a selected conversation leaves it out of the action.
 */
export function ConversationBulkBar(props: {
  shown: Conversation[];
  selection: ConversationSelection;
  meId: string;
}) {
  const { shown, selection } = props;
  const ids = shown.filter((c) => selection.selected.has(c.id)).map((c) => c.id);
  const all = shown.length > 0 && ids.length === shown.length;
  const [dialog, setDialog] = useState<Dialog>(null);
  const [assignee, setAssignee] = useState<string | null>(null);
  const team = useTeam({ staleTime: 60_000 });
  const bulk = useBulkConversations();
  const close = () => setDialog(null);
  const count = plural(ids.length);
  if (shown.length === 0) return null;

  /** One call; then the result in words, and the selection cleared. */
  const run = (body: Parameters<typeof bulk.mutate>[0], said: (updated: number) => string) =>
    bulk.mutate(body, {
      onSuccess: ({ updated, notFound }) => {
        const gone = notFound.length > 0 ? ` (${plural(notFound.length)} no longer there)` : "";
        notify(`${said(updated)}${gone}`);
        selection.clear();
        close();
      },
    });
  const members = team.data?.members ?? [];
  const nameOf = (id: string) => {
    const m = members.find((x) => x.id === id);
    return id === props.meId ? "you" : (m?.name ?? m?.email ?? "a teammate");
  };

  return (
    <Stack gap={6} mb="xs">
      <Checkbox
        size="xs"
        label="Select all shown"
        checked={all}
        indeterminate={ids.length > 0 && !all}
        onChange={(e) =>
          selection.set(
            shown.map((c) => c.id),
            e.currentTarget.checked,
          )
        }
      />
      {ids.length > 0 && (
        <BulkToolbar
          count={count}
          onClear={selection.clear}
          actions={
            <>
              <Button size="xs" variant="default" onClick={() => setDialog("assign")}>
                Assign
              </Button>
              <Button
                size="xs"
                variant="default"
                loading={bulk.isPending && bulk.variables?.action === "resolve"}
                onClick={() => run({ ids, action: "resolve" }, (n) => `${plural(n)} resolved`)}
              >
                Resolve
              </Button>
              <Button size="xs" variant="default" onClick={() => setDialog("label")}>
                Label
              </Button>
            </>
          }
        >
          <FormModal
            opened={dialog === "assign"}
            onClose={close}
            title={`Assign ${count}`}
            submitLabel="Assign conversations"
            submitDisabled={!assignee}
            loading={bulk.isPending}
            onSubmit={() => {
              // "Nobody" unassigns.
              const assigneeId = assignee === "none" ? null : assignee;
              run({ ids, action: "assign", assigneeId }, (n) =>
                assigneeId ? `${plural(n)} assigned to ${nameOf(assigneeId)}` : `${plural(n)} unassigned`,
              );
            }}
          >
            <Select
              label="Assign to"
              placeholder="Choose a teammate"
              data={[
                ...members.map((m) => ({
                  value: m.id,
                  label: m.id === props.meId ? `${m.name ?? m.email} (you)` : (m.name ?? m.email),
                })),
                { value: "none", label: "Nobody (unassign)" },
              ]}
              value={assignee}
              onChange={setAssignee}
              searchable
            />
          </FormModal>
          <BulkLabelDialog
            opened={dialog === "label"}
            onClose={close}
            title={`Label the contacts of ${count}`}
            loading={bulk.isPending}
            apply={(label, done) => {
              run({ ids, action: "label", label }, (n) => `Label "${label}" added to ${plural(n)}`);
              done();
            }}
          />
        </BulkToolbar>
      )}
    </Stack>
  );
}
