// The provider channels (WhatsApp, Telegram, SMS through Twilio, Messenger, Instagram): their settings
// form (for Add channel and Edit) and what to paste back into the provider's console once saved: the
// inbound URL and, for Meta's types, the verify token.
import { Alert, Button, CopyButton, Group, Paper, Radio, Stack, Text, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { type ReactNode, useState } from "react";
import { CopyableCode } from "../../components/CopyableCode.tsx";
import { FormActions } from "../../components/FormActions.tsx";
import { PasswordField } from "../../components/PasswordField.tsx";
import { ErrorAlert } from "../../components/States.tsx";
import { ApiError } from "../../lib/api.ts";
import type { Channel } from "../../lib/api-types.ts";
import {
  CHANNEL_TYPE_LABELS,
  isMeta,
  PROVIDER_FIELDS,
  type ProviderField,
  type ProviderType,
  randomToken,
} from "../../lib/channels.ts";
import { useSaveChannel } from "../../lib/queries/channels.ts";
import { CampaignSelect } from "./CampaignSelect.tsx";

type Sender = "from" | "service";

interface ProviderForm {
  name: string;
  campaignId: string | null;
  values: Record<string, string>;
  sender: Sender;
}

function formOf(type: ProviderType, channel: Channel | null): ProviderForm {
  const config = channel?.config ?? {};
  const values: Record<string, string> = {};
  for (const field of PROVIDER_FIELDS[type]) {
    const current = config[field.key];
    // Secrets come masked: the field stays empty (the mask is its placeholder) and keeps its value.
    if (field.secret) values[field.key] = !channel && field.generated ? randomToken() : "";
    else values[field.key] = typeof current === "string" ? current : "";
  }
  return {
    name: channel?.name ?? "",
    campaignId: channel?.campaignId ?? null,
    values,
    sender: typeof config.messagingServiceSid === "string" && config.messagingServiceSid ? "service" : "from",
  };
}

function shown(field: ProviderField, form: ProviderForm): boolean {
  return !field.sender || field.sender === form.sender;
}

/** What is wrong with each field as typed (the server checks again), by key. */
function problemsOf(type: ProviderType, form: ProviderForm, editing: boolean): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const field of PROVIDER_FIELDS[type]) {
    if (!shown(field, form)) continue;
    const value = form.values[field.key]?.trim() ?? "";
    if (!value) {
      // On edit an empty secret keeps the saved one.
      if (!field.optional && !(editing && field.secret)) problems[field.key] = `${field.label} is required`;
      continue;
    }
    const problem = field.check?.(value);
    if (problem) problems[field.key] = problem;
  }
  return problems;
}

function configOf(type: ProviderType, form: ProviderForm, previous: Channel | null): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const field of PROVIDER_FIELDS[type]) {
    const value = form.values[field.key]?.trim() ?? "";
    if (!shown(field, form)) {
      // Twilio: switching between a number and a messaging service clears the other one.
      if (previous && typeof previous.config[field.key] === "string") config[field.key] = null;
      continue;
    }
    if (value) config[field.key] = value;
  }
  return config;
}

/** The config key a server message names ("config.botToken must be …"), when it is one of the form's. */
function fieldOfMessage(type: ProviderType, message: string): ProviderField | undefined {
  const key = /config\.([A-Za-z]+)/.exec(message)?.[1];
  return PROVIDER_FIELDS[type].find((f) => f.key === key);
}

export function ProviderChannelForm({
  type,
  channel,
  onBack,
  onSaved,
}: {
  type: ProviderType;
  channel: Channel | null;
  onBack?: () => void;
  /** The saved channel, and the verify token typed or generated (the server only answers it masked). */
  onSaved: (channel: Channel, verifyToken: string | null) => void;
}) {
  const providerForm = useForm<ProviderForm>({ initialValues: formOf(type, channel) });
  const form = providerForm.values;
  // The problems show once Save was tried, then follow the typing.
  const [touched, setTouched] = useState(false);
  // Fields changed since the last answer: the server's complaint about one of them no longer shows under it.
  const [changedSince, setChangedSince] = useState<string[]>([]);
  const editing = channel !== null;
  const setValue = (key: string, value: string) => {
    providerForm.setFieldValue(`values.${key}`, value);
    setChangedSince((keys) => (keys.includes(key) ? keys : [...keys, key]));
  };
  const save = useSaveChannel(channel?.id ?? null, { refreshDashboard: true });
  const submit = () => {
    const body = {
      name: form.name.trim(),
      campaignId: form.campaignId,
      config: configOf(type, form, channel),
    };
    setChangedSince([]);
    save.mutate(channel ? body : { type, ...body }, {
      onSuccess: (saved) => onSaved(saved, form.values.verifyToken?.trim() || null),
    });
  };
  const nameProblem = form.name.trim() ? null : `Give the channel a name, like ${CHANNEL_TYPE_LABELS[type]}`;
  const problems = problemsOf(type, form, editing);
  const ready = !nameProblem && Object.keys(problems).length === 0;
  // The server's INVALID_CHANNEL_CONFIG names the field: shown under it too, in the field's words.
  const serverField =
    save.error instanceof ApiError && save.error.code === "INVALID_CHANNEL_CONFIG"
      ? fieldOfMessage(type, save.error.message)
      : undefined;
  const errorOf = (field: ProviderField): string | undefined => {
    if (touched && problems[field.key]) return problems[field.key];
    if (serverField?.key === field.key && save.error && !changedSince.includes(field.key)) {
      return save.error.message.replace(`config.${field.key}`, field.label);
    }
    return undefined;
  };
  const fields = PROVIDER_FIELDS[type];

  const input = (field: ProviderField) => {
    const saved = channel?.config[field.key];
    const common = {
      label: field.label,
      description:
        editing && field.secret
          ? `${field.description} Leave empty to keep the saved one${typeof saved === "string" ? ` (${saved})` : ""}.`
          : field.description,
      value: form.values[field.key] ?? "",
      onChange: (e: React.ChangeEvent<HTMLInputElement>) => setValue(field.key, e.currentTarget.value),
      error: errorOf(field),
      required: !field.optional && !(editing && field.secret),
      autoComplete: "off",
      spellCheck: false,
    };
    if (!field.secret) {
      return <TextInput key={field.key} {...common} placeholder={field.placeholder} maxLength={200} />;
    }
    return (
      <Stack key={field.key} gap={4}>
        <PasswordField
          {...common}
          placeholder={editing && typeof saved === "string" ? saved : field.placeholder}
          autoComplete="new-password"
          maxLength={500}
        />
        {field.generated && (
          <Group gap="xs">
            <CopyButton value={form.values[field.key] ?? ""}>
              {({ copied, copy }) => (
                <Button
                  size="compact-xs"
                  variant="light"
                  color={copied ? "teal" : "blue"}
                  onClick={copy}
                  disabled={!form.values[field.key]}
                >
                  {copied ? "Copied" : "Copy token"}
                </Button>
              )}
            </CopyButton>
            <Button size="compact-xs" variant="subtle" onClick={() => setValue(field.key, randomToken())}>
              {editing ? "Generate a new one" : "Generate another"}
            </Button>
          </Group>
        )}
      </Stack>
    );
  };

  return (
    <ChannelForm
      ready={ready}
      save={save}
      editing={editing}
      onBack={onBack}
      onTried={() => setTouched(true)}
      onSave={submit}
    >
      <Stack gap="sm">
        <TextInput
          label="Channel name"
          description="For you and your team, in the inbox and the dashboard."
          placeholder={CHANNEL_TYPE_LABELS[type]}
          maxLength={100}
          {...providerForm.getInputProps("name")}
          error={touched ? nameProblem : undefined}
          required
          data-autofocus
        />
        {type === "twilio_sms" && (
          <Radio.Group
            label="Send from"
            description="A Twilio phone number, or a messaging service (a pool of numbers)."
            {...providerForm.getInputProps("sender")}
          >
            <Group gap="md" mt={8}>
              <Radio value="from" label="A phone number" />
              <Radio value="service" label="A messaging service" />
            </Group>
          </Radio.Group>
        )}
        {fields.filter((f) => shown(f, form)).map(input)}
        <CampaignSelect
          value={form.campaignId}
          onChange={(v) => providerForm.setFieldValue("campaignId", v)}
        />
      </Stack>
    </ChannelForm>
  );
}

/** Where the inbound URL goes in the provider's console, in a sentence. */
function pasteInstructions(channel: Channel): string {
  switch (channel.type) {
    case "whatsapp":
      return "In the Meta App Dashboard, open WhatsApp → Configuration → Webhook and choose Edit: paste the Callback URL and the Verify token, Verify and save, then subscribe to the messages field.";
    case "messenger":
      return "In your Meta app, open Messenger → settings, Webhooks: paste the Callback URL and the Verify token, then subscribe your Page to messages, message_deliveries and message_reads.";
    case "instagram":
      return "In your Meta app, open the webhook settings for Instagram: paste the Callback URL and the Verify token, then subscribe to messages.";
    case "twilio_sms":
      return typeof channel.config.messagingServiceSid === "string" && channel.config.messagingServiceSid
        ? "In the Twilio Console, open Messaging → Services → your service → Integration: choose Send a webhook and paste the Webhook URL as the request URL for incoming messages."
        : "In the Twilio Console, open Phone Numbers → your number → Messaging Configuration: under A message comes in, choose Webhook, HTTP POST, and paste the Webhook URL.";
    case "telegram":
      return "Nothing to paste: Parley gave this URL to Telegram itself (setWebhook). Write to your bot to try it.";
    default:
      return "";
  }
}

function CopyBox({
  label,
  value,
  copyLabel,
  testId,
}: {
  label: string;
  value: string;
  copyLabel: string;
  testId: string;
}) {
  return (
    <Paper withBorder p="sm" radius="md">
      <Text size="sm" fw={500} mb={4}>
        {label}
      </Text>
      <CopyableCode value={value} copyLabel={copyLabel} testId={testId} />
    </Paper>
  );
}

/**
 * What to paste back into the provider's console: the inbound URL and, for Meta's types, the verify
 * token (known only right after it was typed or generated: the server answers it masked).
 */
export function PasteBack({ channel, verifyToken }: { channel: Channel; verifyToken: string | null }) {
  const meta = isMeta(channel.type);
  const savedToken = channel.config.verifyToken;
  return (
    <Stack gap="sm">
      <Text size="sm">{pasteInstructions(channel)}</Text>
      {channel.inboundUrl && (
        <CopyBox
          label={meta ? "Callback URL" : "Webhook URL"}
          value={channel.inboundUrl}
          copyLabel="Copy URL"
          testId="inbound-url"
        />
      )}
      {meta &&
        (verifyToken ? (
          <CopyBox label="Verify token" value={verifyToken} copyLabel="Copy token" testId="verify-token" />
        ) : (
          <Text size="xs" c="#495057">
            Verify token: the one you saved{typeof savedToken === "string" ? ` (${savedToken})` : ""}. Lost
            it? Generate a new one below, save, and paste it into Meta too.
          </Text>
        ))}
      {channel.type === "whatsapp" && (
        <Text size="xs" c="#495057">
          WhatsApp accepts a free reply only within 24 hours of the customer's last message; later replies are
          marked Failed with that reason.
        </Text>
      )}
    </Stack>
  );
}

/** The dialog's last step for a provider channel: created, and what to paste into the provider. */
export function ProviderReady({
  channel,
  verifyToken,
  onDone,
}: {
  channel: Channel;
  verifyToken: string | null;
  onDone: () => void;
}) {
  return (
    <Stack gap="sm">
      {channel.status === "error" ? (
        <Alert color="red" role="alert" title="Created, but not connected">
          Parley could not connect it to {CHANNEL_TYPE_LABELS[channel.type]}:{" "}
          {channel.lastError ?? "an error"}. Check the settings with Edit in the list, then Resume.
        </Alert>
      ) : (
        <Alert color="green" role="status" title="Channel created">
          {channel.type === "telegram"
            ? "Your bot is connected: messages to it arrive in the inbox."
            : `Last step: tell ${channel.type === "twilio_sms" ? "Twilio" : "Meta"} where to send your messages.`}
        </Alert>
      )}
      <PasteBack channel={channel} verifyToken={verifyToken} />
      <DoneButton onClick={onDone} />
    </Stack>
  );
}

/** The last step's only way on: focused, so Enter closes the dialog. */
export function DoneButton({ onClick }: { onClick: () => void }) {
  return (
    <Group justify="flex-end">
      <Button onClick={onClick} data-autofocus>
        Done
      </Button>
    </Group>
  );
}

/**
 * A channel form (website chat or provider): Save marks it tried (its problems show from then on) and
 * saves it when it is ready; it ends with the server's refusal, Back (when there is a step before) and Save.
 */
export function ChannelForm({
  ready,
  save,
  editing,
  onBack,
  onTried,
  onSave,
  children,
}: {
  ready: boolean;
  save: { isPending: boolean; error: unknown };
  editing: boolean;
  onBack?: (() => void) | undefined;
  onTried: () => void;
  onSave: () => void;
  children: ReactNode;
}) {
  return (
    <form
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        onTried();
        if (ready && !save.isPending) onSave();
      }}
    >
      {children}
      <ErrorAlert error={save.error} title="Not saved" mt="md" data-testid="save-error" />
      <FormActions
        mt="md"
        onCancel={onBack}
        cancelLabel="Back"
        busy={save.isPending}
        submitLabel={editing ? "Save changes" : "Create channel"}
      />
    </form>
  );
}
