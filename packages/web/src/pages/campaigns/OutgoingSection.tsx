import {
  Alert,
  Anchor,
  Badge,
  Button,
  Fieldset,
  Group,
  List,
  Modal,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
} from "@mantine/core";
import { useForm } from "@mantine/form";
import { useState } from "react";
import { Link } from "react-router";
import { ErrorAlert } from "../../components/States.tsx";
import type { Campaign, Channel, SkippedMember, SkipReason } from "../../lib/api-types.ts";
import { CHANNEL_TYPE_LABELS, isProvider } from "../../lib/channels.ts";
import {
  useCampaignStats,
  useOutgoingAction,
  useSkippedMembers,
  useUpdateOutgoing,
} from "../../lib/queries/campaigns.ts";
import { useChannels } from "../../lib/queries/channels.ts";
import { useListChoices } from "../../lib/queries/lists.ts";
import { CampaignSection } from "./CampaignSection.tsx";

const STATE_LABEL = { running: "Sending", paused: "Paused", done: "Done" } as const;
/** Why a member was skipped, after its name in the list of skipped members. */
const SKIP_REASON: Record<SkipReason, string> = {
  no_custom_channel_id: "no custom channel id",
  no_known_channel: "no channel of its own, and the campaign names none",
  no_phone: "no phone",
  opted_out: "opted out of SMS",
};
/** The same, after a count in the summary ("2 with no phone", "1 opted out of SMS"). */
const SKIP_COUNT: Record<SkipReason, (n: number) => string> = {
  no_custom_channel_id: (n) => `${n} with no custom channel id`,
  no_known_channel: (n) => `${n} with no channel of its own, and the campaign names none`,
  no_phone: (n) => `${n} with no phone`,
  opted_out: (n) => `${n} opted out of SMS`,
};
const SKIP_REASONS = Object.keys(SKIP_REASON) as SkipReason[];

/** The start buttons' green: white on Mantine's darkest green (green-9) is under 4.5:1 (4.37). */
const GO_GREEN = "#267a36";

/** The "Send through" value of the custom channel (a provider channel's is its id). */
const CUSTOM = "custom";

/** What the section says it does, on the channel it sends through. */
function explanation(via: Pick<Channel, "name" | "type"> | null): string {
  if (!via) {
    return (
      "Send a first message to every member of a list, each on the custom channel it wrote in on; the bot " +
      "answers their replies. Members without a custom channel id, or without any channel when the campaign " +
      "names none, are skipped; nobody gets it twice."
    );
  }
  const through = `Send a first message to every member of a list through ${via.name}; the bot answers their replies.`;
  if (via.type === "whatsapp") {
    return `${through} It goes to each member's phone number as a template approved in WhatsApp Manager (WhatsApp delivers nothing else as a first message). Members without a phone are skipped; nobody gets it twice.`;
  }
  if (via.type === "twilio_sms") {
    return `${through} It goes to each member's phone number. Members without a phone, or who texted STOP, are skipped; nobody gets it twice.`;
  }
  return `${through} It reaches only members who wrote to this channel before; the others are skipped. Nobody gets it twice.`;
}

/** The template's parameters as typed, one a line (empty lines dropped). */
const parametersOf = (text: string) =>
  text
    .split("\n")
    .map((p) => p.trim())
    .filter(Boolean);

/** The section's fields as typed. */
interface OutgoingForm {
  message: string;
  listId: string | null;
  /** The custom channel's name, kept while a provider channel is chosen. */
  channel: string;
  /** CUSTOM, or the provider channel's id. */
  via: string;
  templateName: string;
  templateLanguage: string;
  /** One a line. */
  templateParameters: string;
  rate: number | string;
  onlyInHours: boolean;
}

type TemplateErrors = Partial<Record<"templateName" | "templateLanguage" | "templateParameters", string>>;

/** What is wrong with the template as typed (the server checks again). */
function checkTemplate(values: OutgoingForm): TemplateErrors {
  const errors: TemplateErrors = {};
  const name = values.templateName.trim();
  if (!name) errors.templateName = "Give the name of the approved template";
  else if (name.length > 512) errors.templateName = "At most 512 characters";
  const lang = values.templateLanguage.trim();
  if (!lang) errors.templateLanguage = "Give the template's language code, like en_US";
  else if (lang.length < 2 || lang.length > 15) errors.templateLanguage = "A language code like en_US";
  const parameters = parametersOf(values.templateParameters);
  if (parameters.length > 20) errors.templateParameters = "At most 20 parameters";
  else if (parameters.some((p) => p.length > 1024))
    errors.templateParameters = "At most 1,024 characters a parameter";
  return errors;
}

const nameOf = (m: SkippedMember) =>
  [m.firstName, m.lastName].filter(Boolean).join(" ") || m.phone || m.email || m.contactId;

/** The campaign's outgoing side: a first message to every member of a list, with live progress. */
export function OutgoingSection({ campaign, editable }: { campaign: Campaign; editable: boolean }) {
  const o = campaign.outgoing;
  // Typing in a template field clears its error (the form's default); the errors come from Save.
  const form = useForm<OutgoingForm>({
    initialValues: {
      message: o?.message ?? "Hi {{firstName|there}}! ",
      listId: o?.listId ?? null,
      channel: o?.channel ?? "",
      via: o?.channelId ?? CUSTOM,
      templateName: o?.template?.name ?? "",
      templateLanguage: o?.template?.language ?? "",
      templateParameters: (o?.template?.parameters ?? []).join("\n"),
      rate: o?.ratePerMinute ?? 60,
      onlyInHours: o?.onlyInHours ?? false,
    },
  });
  const { message, listId, via } = form.values;
  const [confirming, setConfirming] = useState(false);
  const lists = useListChoices();
  const channels = useChannels();
  const providers = (channels.data?.data ?? []).filter((ch) => isProvider(ch.type));
  const viaChannel = via === CUSTOM ? null : (providers.find((ch) => ch.id === via) ?? null);
  const whatsapp = viaChannel?.type === "whatsapp";
  const viaOptions = [
    { value: CUSTOM, label: "Custom channel" },
    ...providers.map((ch) => ({
      value: ch.id,
      label: `${ch.name} (${CHANNEL_TYPE_LABELS[ch.type]}${ch.status === "active" ? "" : `, ${ch.status}`})`,
    })),
    // A saved channel that is gone (or not loaded): still shown, so the select never reads empty.
    ...(via !== CUSTOM && !viaChannel
      ? [{ value: via, label: channels.isPending ? "Loading channels…" : "A deleted channel" }]
      : []),
  ];
  const stats = useCampaignStats(campaign.id, { enabled: o !== null, poll: true });
  const s = stats.data;
  const skipped = useSkippedMembers(campaign.id, (s?.skipped ?? 0) > 0);
  const save = useUpdateOutgoing(campaign.id);
  const act = useOutgoingAction(campaign.id);
  const startOrPause = (action: "start" | "pause") =>
    act.mutate(action, { onSuccess: () => setConfirming(false) });
  const submit = () => {
    const values = form.getValues();
    if (whatsapp) {
      const errors = checkTemplate(values);
      form.setErrors(errors);
      if (Object.keys(errors).length > 0) {
        save.reset();
        return;
      }
    }
    save.mutate({
      message: values.message,
      listId: values.listId,
      // Kept while a provider channel is chosen (the server ignores it then), for switching back.
      channel: values.channel.trim() || null,
      channelId: values.via === CUSTOM ? null : values.via,
      template: whatsapp
        ? {
            name: values.templateName.trim(),
            language: values.templateLanguage.trim(),
            parameters: parametersOf(values.templateParameters),
          }
        : null,
      ratePerMinute: Number(values.rate) || 60,
      onlyInHours: values.onlyInHours,
    });
  };
  // Done with nobody left: nothing to start (members added to the list later make it startable again).
  const finished = s?.state === "done" && s.queued === 0;
  return (
    <CampaignSection
      headingId="outgoing-heading"
      title="Outgoing message"
      aside={
        s?.state && (
          <Badge
            variant="light"
            color={s.state === "running" ? "green" : s.state === "paused" ? "yellow" : "gray"}
          >
            {STATE_LABEL[s.state]}
          </Badge>
        )
      }
    >
      <Text size="sm" c="dimmed" mb="sm">
        {explanation(viaChannel)}
      </Text>
      <fieldset disabled={!editable} style={{ border: 0, padding: 0, margin: 0 }}>
        <Stack gap="sm">
          <Textarea
            label="First message"
            description={
              whatsapp
                ? "What the inbox shows for the template (WhatsApp delivers the template itself). {{firstName}} is the contact's first name; {{firstName|there}} says “there” when it is empty"
                : "{{firstName}} is the contact's first name; {{firstName|there}} says “there” when it is empty"
            }
            autosize
            minRows={2}
            {...form.getInputProps("message")}
            maxLength={2000}
          />
          <Group grow align="flex-start">
            <Select
              label="To the list"
              placeholder="Pick a list"
              data={(lists.data?.data ?? []).map((l) => ({
                value: l.id,
                label: `${l.name} (${l.memberCount})`,
              }))}
              {...form.getInputProps("listId")}
            />
            <Select
              label="Send through"
              description="The custom channel, or one of the account's channels (Settings → Channels)"
              data={viaOptions}
              value={via}
              onChange={(v) => {
                form.setFieldValue("via", v ?? CUSTOM);
                form.clearErrors();
              }}
              allowDeselect={false}
            />
          </Group>
          <Group grow align="flex-start">
            {via === CUSTOM && (
              <TextInput
                label="Custom channel"
                description="Only for members who never wrote in on a channel (e.g. imported); optional"
                placeholder="For example sms"
                {...form.getInputProps("channel")}
              />
            )}
            <NumberInput
              label="Messages per minute"
              description="Up to the server's limit (6,000 by default)"
              min={1}
              {...form.getInputProps("rate")}
            />
          </Group>
          {whatsapp && (
            <Fieldset legend="WhatsApp template" variant="filled" radius="md">
              <Stack gap="sm">
                <Group grow align="flex-start">
                  <TextInput
                    label="Template name"
                    description="As approved in WhatsApp Manager, like spring_offer"
                    {...form.getInputProps("templateName")}
                    maxLength={512}
                  />
                  <TextInput
                    label="Template language"
                    description="The language code it was approved in"
                    placeholder="For example en_US"
                    {...form.getInputProps("templateLanguage")}
                    maxLength={15}
                  />
                </Group>
                <Textarea
                  label="Template parameters"
                  description="One a line: the values of {{1}}, {{2}}, … in the template's body, in order. {{firstName|there}} is each member's first name, or “there” when it is empty."
                  placeholder={"{{firstName|there}}\n20% off"}
                  autosize
                  minRows={2}
                  {...form.getInputProps("templateParameters")}
                />
              </Stack>
            </Fieldset>
          )}
          <Switch
            label="Only send during business hours"
            description="While the account is closed (Settings → Business hours) sending waits, and resumes at the opening"
            {...form.getInputProps("onlyInHours", { type: "checkbox" })}
          />
          <ErrorAlert error={save.error} />
          {editable && (
            <Group gap="xs">
              <Button
                variant="light"
                loading={save.isPending}
                disabled={!listId || !message.trim() || (via !== CUSTOM && channels.isPending)}
                onClick={submit}
              >
                Save outgoing message
              </Button>
              {o && s?.state !== "running" && (
                <Button color={GO_GREEN} disabled={finished} onClick={() => setConfirming(true)}>
                  {s?.state === "paused" ? "Resume sending" : "Start sending"}
                </Button>
              )}
              {o && s?.state === "running" && (
                <Button
                  color="yellow"
                  variant="outline"
                  loading={act.isPending}
                  onClick={() => startOrPause("pause")}
                >
                  Pause sending
                </Button>
              )}
            </Group>
          )}
        </Stack>
      </fieldset>
      {s?.state === "running" && s.resumesAt && (
        <Alert color="blue" mt="sm" role="status">
          Waiting for business hours: sending resumes at the opening, {new Date(s.resumesAt).toLocaleString()}
          .
        </Alert>
      )}
      {s?.pausedReason === "out_of_credits" && (
        <Alert color="red" mt="sm" role="alert">
          Paused: the account is out of credits. Add credits, then resume.
        </Alert>
      )}
      <Modal
        opened={confirming}
        onClose={() => setConfirming(false)}
        title={s?.state === "paused" ? "Resume sending?" : "Start sending?"}
        closeButtonProps={{ "aria-label": "Close" }}
      >
        <Text size="sm" mb="md">
          {s?.queued ?? 0} member{s?.queued === 1 ? "" : "s"} of the list will get the first message{" "}
          {o?.onlyInHours ? "during business hours" : "now"}, at up to {o?.ratePerMinute ?? 0} a minute. Sent
          messages cannot be taken back.
        </Text>
        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={() => setConfirming(false)}>
            Cancel
          </Button>
          <Button color={GO_GREEN} loading={act.isPending} onClick={() => startOrPause("start")}>
            Send
          </Button>
        </Group>
      </Modal>
      {s && (
        <SimpleGrid cols={{ base: 3, sm: 6 }} mt="sm" aria-label="Outgoing progress">
          {(["queued", "pending", "sent", "failed", "skipped", "replied"] as const).map((k) => (
            <div key={k}>
              <Text size="xs" c="dimmed" tt="capitalize">
                {k}
              </Text>
              <Text fw={700}>{s[k]}</Text>
            </div>
          ))}
        </SimpleGrid>
      )}
      {s && s.skipped > 0 && (
        <Stack gap={4} mt="sm" aria-label="Skipped members">
          <Text size="sm">
            Skipped {s.skipped}:{" "}
            {SKIP_REASONS.filter((r) => (s.skippedByReason[r] ?? 0) > 0)
              .map((r) => SKIP_COUNT[r](s.skippedByReason[r]))
              .join("; ")}
            .
          </Text>
          <List size="sm">
            {(skipped.data?.data ?? []).map((m) => (
              <List.Item key={m.contactId}>
                <Anchor component={Link} to={`/contacts/${m.contactId}`}>
                  {nameOf(m)}
                </Anchor>
                : {SKIP_REASON[m.reason]}
              </List.Item>
            ))}
          </List>
          {skipped.data?.hasMore && (
            <Text size="xs" c="dimmed">
              The first 50 are listed.
            </Text>
          )}
        </Stack>
      )}
    </CampaignSection>
  );
}
