// "Save as knowledge" (learning from the inbox): after the bot fell back and a person answered, the
// customer's question becomes another phrasing of an existing entry or a new entry with that answer.
import { Button, Group, Paper, Radio, Select, Text, Textarea } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useState } from "react";
import { FormModal } from "../../components/FormModal.tsx";
import type { Message } from "../../lib/api-types.ts";
import { useCampaign, usePreview, useSaveKnowledge } from "../../lib/queries/campaigns.ts";

export interface Learnable {
  /** The customer's message the bot fell back on. */
  question: string;
  /** The first person's reply after the fallback. */
  answer: string;
  key: string;
}

/** The latest fallback in the thread that a person answered afterwards, with the question before it. */
export function lastLearnable(messages: Message[]): Learnable | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const fallback = messages[i];
    if (fallback?.sender !== "bot" || fallback.botOutcome !== "fallback") continue;
    const asked = messages
      .slice(0, i)
      .findLast((m) => m.sender === "contact" && m.type === "text" && m.body?.trim());
    const answered = messages.slice(i + 1).find((m) => m.sender === "human" && m.body?.trim());
    if (asked?.body && answered?.body) {
      return { question: asked.body.trim(), answer: answered.body.trim(), key: fallback.id };
    }
  }
  return null;
}

export function SaveKnowledge({ campaignId, learnable }: { campaignId: string; learnable: Learnable }) {
  const [opened, setOpened] = useState(false);
  const [savedKey, setSavedKey] = useState<string | null>(null);
  const saved = savedKey === learnable.key;
  return (
    <Paper withBorder radius="md" p="xs" bg="var(--mantine-color-gray-0)">
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Text size="sm">
          The bot could not answer “{learnable.question}”.{" "}
          {saved
            ? "Saved: the bot answers it next time."
            : "Teach it, so it answers the next customer who asks."}
        </Text>
        {/* Saved once is enough: the button says so instead of offering the same save again. */}
        <Button size="xs" variant="light" disabled={saved} onClick={() => setOpened(true)}>
          {saved ? "Saved" : "Save as knowledge"}
        </Button>
      </Group>
      {opened && (
        <SaveKnowledgeDialog
          campaignId={campaignId}
          learnable={learnable}
          onClose={() => setOpened(false)}
          onSaved={() => {
            setSavedKey(learnable.key);
            setOpened(false);
          }}
        />
      )}
    </Paper>
  );
}

function SaveKnowledgeDialog({
  campaignId,
  learnable,
  onClose,
  onSaved,
}: {
  campaignId: string;
  learnable: Learnable;
  onClose: () => void;
  onSaved: () => void;
}) {
  const campaign = useCampaign(campaignId);
  // The entry that came closest to the question (below the threshold) is the likely one to extend.
  const closest = usePreview(campaignId, learnable.question);
  const form = useForm({
    initialValues: {
      mode: "new" as "new" | "phrasing",
      question: learnable.question,
      answer: learnable.answer,
    },
  });
  const { mode, question, answer } = form.values;
  const [chosen, setEntry] = useState<string | null>(null);
  const near = closest.data?.closest ?? null;
  const entry = chosen ?? (near ? String(near.index) : null);
  const entries = (campaign.data?.knowledge ?? []).flatMap((e, index) =>
    e.question && e.answer ? [{ value: String(index), label: e.question }] : [],
  );
  const save = useSaveKnowledge(campaignId, campaign.data?.name);
  const ready = question.trim() !== "" && (mode === "new" ? answer.trim() !== "" : entry !== null);
  return (
    <FormModal
      opened
      onClose={onClose}
      title="Save as knowledge"
      size="lg"
      submitLabel="Save"
      submitDisabled={!ready}
      loading={save.isPending}
      error={save.error}
      errorTitle="Not saved"
      onSubmit={() =>
        save.mutate(mode === "new" ? { question, answer } : { question, entryIndex: Number(entry) }, {
          onSuccess: () => onSaved(),
        })
      }
    >
      <Text size="sm" c="dimmed">
        {campaign.data ? `Campaign: ${campaign.data.name}` : "Loading the campaign…"}
      </Text>
      <Textarea
        label="Customer's question"
        autosize
        minRows={2}
        maxLength={1000}
        {...form.getInputProps("question")}
      />
      <Radio.Group
        label="Save it as"
        value={mode}
        onChange={(v) => form.setFieldValue("mode", v === "phrasing" ? "phrasing" : "new")}
      >
        <Group gap="md" mt={4}>
          <Radio value="new" label="A new entry" />
          <Radio value="phrasing" label="Another way to ask an entry" />
        </Group>
      </Radio.Group>
      {near?.question && (
        <Text size="xs" c="dimmed">
          Closest entry: “{near.question}” (confidence {Math.round(near.confidence * 100)} %, below what the
          bot needs to answer).
        </Text>
      )}
      {mode === "new" ? (
        <Textarea
          label="Answer"
          description="What the bot will reply; your reply to the customer to start with."
          autosize
          minRows={3}
          maxLength={5000}
          {...form.getInputProps("answer")}
        />
      ) : (
        <Select
          label="Entry"
          placeholder={entries.length ? "Choose the question it asks" : "This campaign has no entries yet"}
          data={entries}
          value={entry}
          onChange={setEntry}
          searchable
          nothingFoundMessage="No entry has these words"
        />
      )}
    </FormModal>
  );
}
