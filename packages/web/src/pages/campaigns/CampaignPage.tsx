import {
  Alert,
  Badge,
  Button,
  Group,
  List,
  Paper,
  Select,
  Stack,
  TagsInput,
  Text,
  Textarea,
  TextInput,
  Title,
} from "@mantine/core";
import { useField } from "@mantine/form";
import { useRef, useState } from "react";
import { useParams } from "react-router";
import { ErrorAlert, ErrorState, LoadingState } from "../../components/States.tsx";
import type { BotFunction, Campaign, KnowledgeEntry, Session } from "../../lib/api-types.ts";
import {
  useCampaign,
  usePreviewReply,
  useSuggestPhrasings,
  useUpdateCampaign,
} from "../../lib/queries/campaigns.ts";
import { canManage } from "../../lib/session.ts";
import { useDocumentTitle } from "../../lib/useDocumentTitle.ts";
import { AddRowButton, CampaignSection, RemoveRowButton } from "./CampaignSection.tsx";
import { CampaignFormProvider, type CampaignFormValues, useCampaignForm } from "./campaignForm.ts";
import { FollowUpsSection, followUpDraftsOf, followUpsOf } from "./FollowUpsSection.tsx";
import { FunctionsSection, functionDraftsOf, functionsOf } from "./FunctionsSection.tsx";
import { HoursSection } from "./HoursSection.tsx";
import { OutgoingSection } from "./OutgoingSection.tsx";
import { PhrasingsModal } from "./PhrasingsModal.tsx";
import { SourcesSection } from "./SourcesSection.tsx";

/** The most other ways to ask an entry keeps (the server's limit). */
const MAX_ALTERNATIVES = 20;
const STATUSES = [
  { value: "live", label: "Live (answers)" },
  { value: "draft", label: "Draft" },
  { value: "paused", label: "Paused" },
];
const ENGINES = [
  { value: "auto", label: "Automatic (LLM when one is set up)" },
  { value: "builtin", label: "Builtin (offline)" },
  { value: "llm", label: "LLM" },
];

function formValuesOf(c: Campaign): CampaignFormValues {
  return {
    name: c.name,
    status: c.status,
    instructions: c.instructions,
    keywords: c.keywords,
    fallbackMessage: c.fallbackMessage,
    engine: c.engine,
    model: c.model ?? "",
    // A question's other ways to ask are left out when there are none: the field wants a list.
    knowledge: c.knowledge.map((k) =>
      k.text === undefined ? { ...k, alternatives: k.alternatives ?? [] } : k,
    ),
    functions: functionDraftsOf(c.functions),
    followUps: followUpDraftsOf(c.followUps),
    hours: {
      outsideHours: c.outsideHours ?? "answer",
      awayMessage: c.awayMessage ?? "",
      followUpsInHours: c.followUpsInHours ?? false,
    },
  };
}

/** The campaign as the server takes it, with the functions already parsed. */
function bodyOf(values: CampaignFormValues, functions: BotFunction[]) {
  const { model, knowledge, followUps, hours, ...settings } = values;
  return {
    ...settings,
    model: model.trim() ? model.trim() : null,
    knowledge: knowledge.filter(
      (k) => (k.text ?? "").trim() || (k.question ?? "").trim() || (k.answer ?? "").trim(),
    ),
    functions,
    followUps: followUpsOf(followUps),
    outsideHours: hours.outsideHours,
    awayMessage: hours.awayMessage.trim() || null,
    followUpsInHours: hours.followUpsInHours,
  };
}

export function CampaignPage({ session }: { session: Session }) {
  useDocumentTitle("Campaign");
  const { campaignId = "" } = useParams();
  const campaign = useCampaign(campaignId);
  if (campaign.isPending) return <LoadingState label="Loading the campaign" />;
  if (campaign.isError) return <ErrorState error={campaign.error} onRetry={() => void campaign.refetch()} />;
  return (
    <Stack gap="md" maw={900}>
      <Group gap="xs">
        <Title order={1} size="h2">
          {campaign.data.name}
        </Title>
        {campaign.data.isDefault && <Badge variant="outline">Default campaign</Badge>}
      </Group>
      <TryIt campaignId={campaignId} />
      <OutgoingSection
        key={`out-${campaign.data.updatedAt}`}
        campaign={campaign.data}
        editable={canManage(session)}
      />
      <CampaignEditor key={campaign.data.updatedAt} campaign={campaign.data} editable={canManage(session)} />
    </Stack>
  );
}

/** Type a customer message and see what the bot would answer: nothing is sent, stored or charged. */
function TryIt({ campaignId }: { campaignId: string }) {
  const messageField = useField({ initialValue: "" });
  const message = messageField.getValue();
  const preview = usePreviewReply(campaignId);
  const r = preview.data;
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="try-it-heading">
      <Title order={2} size="h4" id="try-it-heading" mb={4}>
        Try the bot
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        Uses the saved campaign. Nothing is sent or stored, and no credit is used.
      </Text>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (message.trim()) preview.mutate(message);
        }}
      >
        <Group align="flex-end" gap="xs">
          <TextInput
            label="Try it"
            placeholder="A customer message, for example: are you open on Sunday?"
            {...messageField.getInputProps()}
            style={{ flex: 1 }}
            maxLength={10_000}
          />
          <Button type="submit" loading={preview.isPending} disabled={!message.trim()}>
            Preview
          </Button>
        </Group>
      </form>
      <ErrorAlert error={preview.error} mt="sm" />
      {r && (
        <Alert
          mt="sm"
          color={r.outcome === "answer" ? "green" : "yellow"}
          title={
            r.outcome === "answer"
              ? "The bot would answer"
              : r.outcome === "handover"
                ? "The bot would hand over to a person"
                : r.outcome === "choices"
                  ? "The bot would ask which one they mean"
                  : "The bot would fall back"
          }
          role="status"
          aria-label="Preview result"
        >
          <Text size="sm" style={{ whiteSpace: "pre-wrap" }}>
            {r.reply}
          </Text>
          {r.outcome === "choices" && r.choices && (
            <List size="xs" mt="xs" aria-label="Choices offered">
              {r.choices.map((c) => (
                <List.Item key={c.id}>
                  {c.id}.{" "}
                  {c.source ? `From the knowledge source ${c.source.name}` : `Knowledge entry ${c.index + 1}`}
                  {`: "${c.title}", confidence ${Math.round(c.confidence * 100)} %`}
                </List.Item>
              ))}
            </List>
          )}
          <Text size="xs" mt="xs">
            {r.outcome === "choices"
              ? "No entry is certain and these are close: the customer's pick (the number, the button or its words) gets that entry's answer. No one is alerted unless the choices don't help."
              : r.outcome === "answer"
                ? [
                    r.entry
                      ? `From knowledge entry ${r.entry.index + 1}${r.entry.question ? `: "${r.entry.question}"` : ""}`
                      : r.source
                        ? `From the knowledge source ${r.source.name}`
                        : "Written by the LLM",
                    r.confidence !== null ? `confidence ${Math.round(r.confidence * 100)} %` : null,
                  ]
                    .filter(Boolean)
                    .join(" · ")
                : r.reason === "no_answer"
                  ? `No knowledge entry matched well enough: the fallback message goes out and a person is alerted.${
                      r.closest
                        ? ` Closest: entry ${r.closest.index + 1}${r.closest.question ? ` "${r.closest.question}"` : ""}, confidence ${Math.round(r.closest.confidence * 100)} %.`
                        : ""
                    }`
                  : r.reason === "llm_not_configured"
                    ? "This campaign uses the LLM, but no LLM provider is set up in Settings."
                    : r.reason === "human_requested"
                      ? "The customer asks for a person: the bot hands over and alerts your team."
                      : r.reason === "function_error"
                        ? "A function failed: the bot says a person will follow up and alerts your team."
                        : "The LLM provider failed."}
          </Text>
        </Alert>
      )}
    </Paper>
  );
}

function CampaignEditor({ campaign, editable }: { campaign: Campaign; editable: boolean }) {
  // Parameters that do not parse: shown next to the field, and the campaign is not sent.
  const [functionsInvalid, setFunctionsInvalid] = useState(false);
  // The form keeps everything typed, also when the server refuses it.
  const form = useCampaignForm({
    initialValues: formValuesOf(campaign),
    onValuesChange: (values, previous) => {
      // Every change copies the values: the functions changed when their contents did.
      if (JSON.stringify(values.functions) !== JSON.stringify(previous.functions)) setFunctionsInvalid(false);
    },
  });
  const draft = form.values;
  const { hours } = draft;
  // "Send an away message" without one: said next to the field, and the campaign is not sent.
  const awayMissing = hours.outsideHours === "away" && !hours.awayMessage.trim();
  const [awayChecked, setAwayChecked] = useState(false);
  // Entries have no ids: a key per entry, kept in step with adds and removals, keeps inputs in place.
  const nextKey = useRef(campaign.knowledge.length);
  const [keys, setKeys] = useState(() => campaign.knowledge.map((_, i) => i));
  const addEntry = (entry: KnowledgeEntry) => {
    form.insertListItem("knowledge", entry);
    setKeys((k) => [...k, nextKey.current++]);
  };
  const removeEntry = (i: number) => {
    form.removeListItem("knowledge", i);
    setKeys((k) => k.filter((_, j) => j !== i));
  };
  const save = useUpdateCampaign(campaign.id);
  const setEntry = (i: number, entry: KnowledgeEntry) => form.replaceListItem("knowledge", i, entry);
  // "Suggest other ways to ask" works on the saved entry: an entry's key is its index in the saved
  // campaign (new entries get keys past its end), and its question must be the saved one.
  const savedIndexOf = (i: number): number | null => {
    const index = keys[i];
    const saved = index === undefined ? undefined : campaign.knowledge[index];
    const question = draft.knowledge[i]?.question?.trim();
    return saved?.question && saved.answer && question === saved.question ? (index ?? null) : null;
  };
  const suggest = useSuggestPhrasings(campaign.id);
  // Kept after closing, so the dialog does not go blank while it fades out.
  const [asking, setAsking] = useState<{ entry: number; rounds: number; open: boolean } | null>(null);
  const closeAsking = () => setAsking((a) => (a ? { ...a, open: false } : a));
  const askedEntry = asking ? draft.knowledge[asking.entry] : undefined;
  const askFor = (i: number, savedIndex: number) => {
    setAsking((a) => ({ entry: i, rounds: (a?.rounds ?? 0) + 1, open: true }));
    suggest.mutate(savedIndex);
  };
  const keep = (kept: string[]) => {
    if (!asking || !askedEntry) return;
    const current = askedEntry.alternatives ?? [];
    const known = new Set([askedEntry.question ?? "", ...current].map((q) => q.trim().toLowerCase()));
    const added = kept.filter((q) => !known.has(q.trim().toLowerCase()));
    setEntry(asking.entry, { ...askedEntry, alternatives: [...current, ...added] });
    closeAsking();
  };

  return (
    <CampaignFormProvider form={form}>
      <form
        onSubmit={form.onSubmit((values) => {
          const fns = functionsOf(values.functions);
          setFunctionsInvalid(fns === null);
          setAwayChecked(true);
          if (fns === null || awayMissing) {
            save.reset();
            return;
          }
          save.mutate(bodyOf(values, fns));
        })}
        noValidate
      >
        <fieldset disabled={!editable} style={{ border: 0, padding: 0, margin: 0 }}>
          <Stack gap="md">
            {!editable && (
              <Alert color="gray" role="note">
                Only owners and admins can change campaigns.
              </Alert>
            )}
            <Paper withBorder p="md" radius="md" component="section" aria-label="Campaign settings">
              <Stack gap="sm">
                <Group grow align="flex-start">
                  <TextInput label="Name" {...form.getInputProps("name")} maxLength={200} />
                  <Select
                    label="Status"
                    data={STATUSES}
                    {...form.getInputProps("status")}
                    allowDeselect={false}
                  />
                </Group>
                <Textarea
                  label="Instructions"
                  description="For the LLM engine: how the bot should behave"
                  autosize
                  minRows={2}
                  {...form.getInputProps("instructions")}
                />
                <TagsInput
                  label="Keywords"
                  description="A message containing one of these words goes to this campaign"
                  {...form.getInputProps("keywords")}
                />
                <Textarea
                  label="Fallback message"
                  description="Sent when the bot has no answer; a person is alerted"
                  autosize
                  minRows={2}
                  {...form.getInputProps("fallbackMessage")}
                />
                <Group grow align="flex-start">
                  <Select
                    label="Engine"
                    data={ENGINES}
                    {...form.getInputProps("engine")}
                    allowDeselect={false}
                  />
                  <TextInput
                    label="Model"
                    placeholder="The account's model"
                    {...form.getInputProps("model")}
                  />
                </Group>
              </Stack>
            </Paper>
            <CampaignSection
              headingId="knowledge-heading"
              title={`Knowledge (${draft.knowledge.length})`}
              headerMb="sm"
              aside={
                <Group gap="xs">
                  <AddRowButton onClick={() => addEntry({ question: "", answer: "", alternatives: [] })}>
                    Add question and answer
                  </AddRowButton>
                  <Button variant="default" size="xs" onClick={() => addEntry({ text: "" })}>
                    Add free text
                  </Button>
                </Group>
              }
            >
              <Stack gap="sm">
                {draft.knowledge.length === 0 && (
                  <Text size="sm" c="dimmed">
                    No knowledge yet: the bot answers with the fallback message.
                  </Text>
                )}
                {draft.knowledge.map((k, i) => (
                  <Paper
                    key={keys[i]}
                    withBorder
                    p="sm"
                    radius="sm"
                    aria-label={`Knowledge entry ${i + 1}`}
                    component="fieldset"
                  >
                    {k.text !== undefined ? (
                      <Textarea
                        label={`Entry ${i + 1}: free text`}
                        autosize
                        minRows={2}
                        {...form.getInputProps(`knowledge.${i}.text`)}
                      />
                    ) : (
                      <Stack gap={6}>
                        <TextInput
                          label={`Entry ${i + 1}: question`}
                          {...form.getInputProps(`knowledge.${i}.question`)}
                        />
                        <Textarea
                          label={`Entry ${i + 1}: answer`}
                          autosize
                          minRows={1}
                          {...form.getInputProps(`knowledge.${i}.answer`)}
                        />
                        <TagsInput
                          label={`Entry ${i + 1}: other ways to ask`}
                          {...form.getInputProps(`knowledge.${i}.alternatives`)}
                        />
                      </Stack>
                    )}
                    <Group justify="flex-end" mt={6}>
                      {editable && k.text === undefined && (
                        <SuggestButton savedIndex={savedIndexOf(i)} onAsk={(index) => askFor(i, index)} />
                      )}
                      <RemoveRowButton onClick={() => removeEntry(i)}>Remove entry {i + 1}</RemoveRowButton>
                    </Group>
                  </Paper>
                ))}
              </Stack>
            </CampaignSection>
            <SourcesSection campaignId={campaign.id} editable={editable} />
            <FunctionsSection campaign={campaign} />
            <FollowUpsSection campaign={campaign} />
            <HoursSection
              draft={hours}
              onChange={(h) => form.setFieldValue("hours", h)}
              canReadHours={editable}
              awayError={awayChecked && awayMissing ? "Write the away message, or answer as usual" : null}
            />
            {functionsInvalid && (
              <Alert color="red" role="alert" title="Not saved">
                A function's parameters are not valid JSON; fix them above. Your changes are still here.
              </Alert>
            )}
            <ErrorAlert error={save.error} title="Not saved">
              {" "}
              Your changes are still here.
            </ErrorAlert>
            {editable && (
              <Group justify="flex-end">
                <Button type="submit" loading={save.isPending}>
                  Save campaign
                </Button>
              </Group>
            )}
          </Stack>
        </fieldset>
        {/* A portal: the dialog's own form does not submit this one (FormModal stops its submit). */}
        <PhrasingsModal
          key={asking?.rounds ?? 0}
          opened={asking?.open ?? false}
          onClose={closeAsking}
          entryNumber={(asking?.entry ?? 0) + 1}
          question={askedEntry?.question ?? ""}
          room={MAX_ALTERNATIVES - (askedEntry?.alternatives?.length ?? 0)}
          pending={suggest.isPending}
          error={suggest.error}
          phrasings={suggest.data?.phrasings}
          onKeep={keep}
        />
      </form>
    </CampaignFormProvider>
  );
}

/**
 * The entry's "Suggest other ways to ask": shown to editors on every question/answer entry (whether an
 * LLM is set up is the server's answer, shown in the dialog); an entry not saved yet says to save first.
 */
function SuggestButton({
  savedIndex,
  onAsk,
}: {
  savedIndex: number | null;
  onAsk: (savedIndex: number) => void;
}) {
  return (
    <Group gap="xs" mr="auto">
      <Button
        size="compact-xs"
        variant="light"
        disabled={savedIndex === null}
        onClick={() => savedIndex !== null && onAsk(savedIndex)}
      >
        Suggest other ways to ask
      </Button>
      {savedIndex === null && (
        <Text size="xs" c="dimmed">
          Save the campaign first to get suggestions for this question.
        </Text>
      )}
    </Group>
  );
}
