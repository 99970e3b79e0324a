// Settings → Canned replies: the account's snippets, inserted in the reply box by typing "/" and the
// shortcut. Placeholders are filled when a reply is inserted (pages/inbox/canned.ts).
import { Button, Code, Group, Paper, Stack, Text, Textarea, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useState } from "react";
import { ErrorText } from "../../components/ErrorText.tsx";
import { FormActions } from "../../components/FormActions.tsx";
import { QueryStatus } from "../../components/QueryStatus.tsx";
import { Section } from "../../components/Section.tsx";
import { EmptyState } from "../../components/States.tsx";
import { errorMessage } from "../../lib/api.ts";
import {
  type CannedReply,
  type CannedReplyInput,
  useCannedReplies,
  useDeleteCannedReply,
  useSaveCannedReply,
} from "../../lib/queries/canned-replies.ts";

const PLACEHOLDERS = ["firstName", "lastName", "name", "phone", "email", "agentName"];

function CannedReplyForm({
  reply,
  onDone,
}: {
  /** The reply being edited; none when adding one. */
  reply?: CannedReply;
  onDone: () => void;
}) {
  const form = useForm<CannedReplyInput>({
    initialValues: { shortcut: reply?.shortcut ?? "", title: reply?.title ?? "", body: reply?.body ?? "" },
  });
  const draft = form.values;
  const save = useSaveCannedReply();
  const ready = draft.shortcut.trim() && draft.title.trim() && draft.body.trim();
  return (
    <Paper
      withBorder
      p="sm"
      radius="md"
      component="form"
      aria-label={reply ? `Edit /${reply.shortcut}` : "New canned reply"}
      onSubmit={form.onSubmit((values) => {
        if (ready) save.mutate({ ...values, id: reply?.id }, { onSuccess: onDone });
      })}
    >
      <Stack gap="xs">
        <Group grow align="flex-start">
          <TextInput
            label="Shortcut"
            description='Typed after "/" in the reply box'
            leftSection="/"
            maxLength={32}
            required
            {...form.getInputProps("shortcut")}
            // Shortcuts are lower case; anything but letters, digits, - and _ is dropped as typed.
            onChange={(e) =>
              form.setFieldValue("shortcut", e.currentTarget.value.toLowerCase().replace(/[^a-z0-9_-]/g, ""))
            }
          />
          <TextInput
            label="Title"
            description="What the list in the reply box shows"
            maxLength={200}
            required
            {...form.getInputProps("title")}
          />
        </Group>
        <Textarea
          label="Text"
          description={
            <>
              Placeholders filled when it is inserted:{" "}
              {PLACEHOLDERS.map((p, i) => (
                <span key={p}>
                  {i > 0 && ", "}
                  <Code>{`{{${p}}}`}</Code>
                </span>
              ))}
              .
            </>
          }
          autosize
          minRows={3}
          maxRows={10}
          maxLength={4000}
          required
          {...form.getInputProps("body")}
          error={save.error ? errorMessage(save.error) : undefined}
        />
        <FormActions
          onCancel={onDone}
          busy={save.isPending}
          disabled={!ready}
          submitLabel={reply ? "Save canned reply" : "Add canned reply"}
        />
      </Stack>
    </Paper>
  );
}

export function CannedRepliesSection() {
  const replies = useCannedReplies();
  const remove = useDeleteCannedReply();
  // "new", a reply's id being edited, or nothing.
  const [editing, setEditing] = useState<string | null>(null);
  return (
    <Section
      title="Canned replies"
      description='Snippets the whole team inserts in a reply by typing "/" and the shortcut.'
    >
      <QueryStatus query={replies} loadingLabel="Loading the canned replies" />
      {replies.data && replies.data.length === 0 && editing !== "new" && (
        <EmptyState title="No canned replies yet">
          Add one for the answers your team types every day, such as opening hours.
        </EmptyState>
      )}
      {replies.data && replies.data.length > 0 && (
        <Stack gap="xs" component="ul" m={0} p={0} style={{ listStyle: "none" }} aria-label="Canned replies">
          {replies.data.map((r) =>
            editing === r.id ? (
              <li key={r.id}>
                <CannedReplyForm reply={r} onDone={() => setEditing(null)} />
              </li>
            ) : (
              <Paper withBorder p="sm" radius="md" component="li" key={r.id}>
                <Group justify="space-between" align="flex-start" wrap="nowrap">
                  <div style={{ minWidth: 0 }}>
                    <Text fw={600} size="sm">
                      /{r.shortcut} · {r.title}
                    </Text>
                    <Text size="sm" c="dimmed" lineClamp={2} style={{ whiteSpace: "pre-wrap" }}>
                      {r.body}
                    </Text>
                  </div>
                  <Group gap="xs" wrap="nowrap">
                    <Button
                      size="xs"
                      variant="default"
                      aria-label={`Edit /${r.shortcut}`}
                      onClick={() => setEditing(r.id)}
                    >
                      Edit
                    </Button>
                    <Button
                      size="xs"
                      variant="light"
                      color="red.9"
                      aria-label={`Delete /${r.shortcut}`}
                      loading={remove.isPending && remove.variables?.id === r.id}
                      onClick={() => remove.mutate(r)}
                    >
                      Delete
                    </Button>
                  </Group>
                </Group>
              </Paper>
            ),
          )}
        </Stack>
      )}
      <ErrorText error={remove.error} c="red.9" />
      {editing === "new" ? (
        <CannedReplyForm onDone={() => setEditing(null)} />
      ) : (
        <Group>
          <Button variant="light" onClick={() => setEditing("new")}>
            Add a canned reply
          </Button>
        </Group>
      )}
    </Section>
  );
}
