// A campaign's follow-ups: up to 9 steps sent to a customer who went quiet, each a wait and a message
// (or, with the LLM engine, an instruction the LLM writes the message from), and optionally the WhatsApp
// template sent instead outside WhatsApp's 24-hour window. Edited here as part of the campaign (saved
// with its Save button), with how many went out and how many got an answer.
import {
  Group,
  NumberInput,
  Paper,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  TextInput,
} from "@mantine/core";
import type { Campaign, FollowUpStep } from "../../lib/api-types.ts";
import { useCampaignStats } from "../../lib/queries/campaigns.ts";
import { RemoveRowButton, RowsSection } from "./CampaignSection.tsx";
import { useFormRows } from "./campaignForm.ts";

/** At most this many steps on a campaign (the server refuses more). */
export const MAX_FOLLOW_UPS = 9;

type Unit = "seconds" | "minutes" | "hours" | "days";
const UNIT_SECONDS: Record<Unit, number> = { seconds: 1, minutes: 60, hours: 3_600, days: 86_400 };
const UNITS: { value: Unit; label: string }[] = [
  { value: "minutes", label: "minutes" },
  { value: "hours", label: "hours" },
  { value: "days", label: "days" },
  { value: "seconds", label: "seconds" },
];

/** One step as typed. */
export interface FollowUpDraft {
  /** A key per row, kept in step with adds and removals (not sent). */
  key: number;
  amount: number | string;
  unit: Unit;
  kind: "message" | "instruction";
  text: string;
  /** The WhatsApp template (all empty: none). Parameters one a line. */
  templateName: string;
  templateLanguage: string;
  templateParameters: string;
}

const DURATION = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;

/** PT24H → 1 day; P1DT2H → 26 hours: the largest unit the wait is a whole number of. */
export function waitOf(after: string): { amount: number; unit: Unit } {
  const m = DURATION.exec(after.trim().toUpperCase());
  const seconds = m
    ? Number(m[1] ?? 0) * 86_400 + Number(m[2] ?? 0) * 3_600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0)
    : 0;
  if (seconds <= 0) return { amount: 24, unit: "hours" };
  for (const unit of ["days", "hours", "minutes"] as const) {
    if (seconds % UNIT_SECONDS[unit] === 0) return { amount: seconds / UNIT_SECONDS[unit], unit };
  }
  return { amount: seconds, unit: "seconds" };
}

/** 2 days → P2D, 30 minutes → PT30M (what the server stores). */
export function durationOf(amount: number | string, unit: Unit): string {
  const n = typeof amount === "number" ? amount : Number(amount);
  // Not a whole number: sent as typed, and the server's answer names the step.
  const v = Number.isInteger(n) ? String(n) : String(amount).trim() || "0";
  return unit === "days" ? `P${v}D` : `PT${v}${unit === "hours" ? "H" : unit === "minutes" ? "M" : "S"}`;
}

export function followUpDraftsOf(steps: FollowUpStep[] | undefined): FollowUpDraft[] {
  return (steps ?? []).map((s, i) => ({
    key: i,
    ...waitOf(s.after),
    kind: s.instruction !== undefined ? "instruction" : "message",
    text: s.instruction ?? s.message ?? "",
    templateName: s.whatsappTemplate?.name ?? "",
    templateLanguage: s.whatsappTemplate?.language ?? "",
    templateParameters: (s.whatsappTemplate?.parameters ?? []).join("\n"),
  }));
}

/** The step's template as typed; none when its name and language are both empty (the server checks the rest). */
function templateOf(d: FollowUpDraft): FollowUpStep["whatsappTemplate"] {
  const name = d.templateName.trim();
  const language = d.templateLanguage.trim();
  if (!name && !language) return undefined;
  const parameters = d.templateParameters
    .split("\n")
    .map((p) => p.trim())
    .filter(Boolean);
  return { name, language, parameters };
}

/** The steps to save (the server checks them and names a step it refuses). */
export function followUpsOf(drafts: FollowUpDraft[]): FollowUpStep[] {
  return drafts.map((d) => {
    const step: FollowUpStep =
      d.kind === "instruction"
        ? { after: durationOf(d.amount, d.unit), instruction: d.text }
        : { after: durationOf(d.amount, d.unit), message: d.text };
    const whatsappTemplate = templateOf(d);
    return whatsappTemplate ? { ...step, whatsappTemplate } : step;
  });
}

/** The campaign form's follow-ups, with how many the saved campaign sent and how many got an answer. */
export function FollowUpsSection({ campaign }: { campaign: Campaign }) {
  const stats = useCampaignStats(campaign.id);
  const figures = stats.data?.followUps;
  const { form, rows: drafts, add: addRow, remove } = useFormRows("followUps");
  const { engine } = form.values;
  const add = () =>
    addRow({
      amount: 24,
      unit: "hours",
      kind: "message",
      text:
        drafts.length === 0
          ? "Still there, {{firstName|there}}? Just reply here if you have a question."
          : "",
      templateName: "",
      templateLanguage: "",
      templateParameters: "",
    });

  return (
    <RowsSection
      headingId="follow-ups-heading"
      title="Follow-ups"
      addLabel="Add follow-up"
      onAdd={add}
      canAdd={drafts.length < MAX_FOLLOW_UPS}
      intro={
        <>
          Sent when a customer has not answered our last message (a bot answer or a person's reply): the first
          after its wait, each next one after the one before. Any message from the customer stops them; a
          person's reply starts them again. Never sent to resolved conversations, to contacts who texted STOP
          or have the label no-follow-up, or while the bot is off for them. Each is charged like a bot reply.
          Up to {MAX_FOLLOW_UPS}.
        </>
      }
      engineWarning={
        engine === "builtin" &&
        drafts.some((d) => d.kind === "instruction") &&
        "The builtin engine cannot write a follow-up from an instruction: give a message, or choose the LLM engine."
      }
      above={
        figures && (
          <SimpleGrid cols={2} maw={320} mb="sm" aria-label="Follow-up results">
            <Figure label="Sent" value={figures.sent} />
            <Figure label="Answered" value={figures.answered} />
          </SimpleGrid>
        )
      }
      empty="No follow-ups: a customer who goes quiet is not written to again."
      rowCount={drafts.length}
    >
      {drafts.map((d, i) => {
        const name = `Follow-up ${i + 1}`;
        const field = (key: keyof FollowUpDraft) => form.getInputProps(`followUps.${i}.${key}`);
        return (
          <Paper key={d.key} withBorder p="sm" radius="sm" component="fieldset" aria-label={name}>
            <Stack gap={6}>
              <Group align="flex-end" gap="xs">
                <NumberInput
                  label={`${name}: wait`}
                  description={i === 0 ? "After our last message" : "After the previous follow-up"}
                  min={1}
                  allowDecimal={false}
                  {...field("amount")}
                  w={180}
                />
                <Select
                  label={`${name}: unit`}
                  data={UNITS}
                  {...field("unit")}
                  allowDeselect={false}
                  w={140}
                />
                <SegmentedControl
                  aria-label={`${name}: what to send`}
                  {...field("kind")}
                  data={[
                    { value: "message", label: "Message" },
                    { value: "instruction", label: "Instruction for the LLM" },
                  ]}
                />
              </Group>
              <Textarea
                label={d.kind === "message" ? `${name}: message` : `${name}: instruction`}
                description={
                  d.kind === "message"
                    ? "{{firstName}}, {{lastName}}, and {{firstName|there}} for a fallback when empty"
                    : "The LLM writes the message from the conversation, for example: remind them of the offer they asked about"
                }
                autosize
                minRows={2}
                {...field("text")}
                maxLength={2000}
              />
              <Text size="xs" c="dimmed" id={`follow-up-${d.key}-template-note`}>
                WhatsApp, optional: outside the 24-hour window since the customer's last message WhatsApp
                accepts only an approved template, sent instead of the above; without one the follow-up is
                skipped there.
              </Text>
              <Group align="flex-start" gap="xs" grow>
                <TextInput
                  label={`${name}: WhatsApp template name`}
                  aria-describedby={`follow-up-${d.key}-template-note`}
                  placeholder="still_there"
                  description="As approved in WhatsApp Manager"
                  {...field("templateName")}
                  maxLength={512}
                />
                <TextInput
                  label={`${name}: template language`}
                  placeholder="en_US"
                  description="Its language code: en_US, pt_BR, en"
                  {...field("templateLanguage")}
                  maxLength={15}
                />
              </Group>
              <Textarea
                label={`${name}: template parameters`}
                description="One a line: the values of {{1}}, {{2}}, … in the template's body, in order; {{firstName|there}} is the contact's first name, or “there” when it is empty"
                autosize
                minRows={1}
                {...field("templateParameters")}
              />
              <Group justify="flex-end">
                <RemoveRowButton onClick={() => remove(i)}>Remove follow-up</RemoveRowButton>
              </Group>
            </Stack>
          </Paper>
        );
      })}
    </RowsSection>
  );
}

/** One figure of the follow-ups' results: a small label over the number. */
function Figure({ label, value }: { label: string; value: number }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={700}>{value}</Text>
    </div>
  );
}
