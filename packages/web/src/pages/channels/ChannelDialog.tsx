// The Add channel dialog (pick a type; for the website chat, its settings beside a live preview, then the
// snippet to copy; for a provider, its settings, then what to paste back into the provider's console) and
// the Edit dialog (the same settings for an existing channel).
import {
  Alert,
  Badge,
  Checkbox,
  ColorInput,
  Group,
  Modal,
  Paper,
  Radio,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  TextInput,
  UnstyledButton,
} from "@mantine/core";
import { useForm } from "@mantine/form";
import { useState } from "react";
import { ChannelIcon } from "../../components/ChannelIcon.tsx";
import { CopyableCode } from "../../components/CopyableCode.tsx";
import type { Channel, ChannelType } from "../../lib/api-types.ts";
import type { WebChannelConfig } from "../../lib/channels.ts";
import { CHANNEL_CHOICES, CHANNEL_TYPE_LABELS, isProvider } from "../../lib/channels.ts";
import { useSaveChannel } from "../../lib/queries/channels.ts";
import { CampaignSelect } from "./CampaignSelect.tsx";
import {
  ChannelForm,
  DoneButton,
  PasteBack,
  ProviderChannelForm,
  ProviderReady,
} from "./ProviderChannel.tsx";
import { WidgetPreview } from "./WidgetPreview.tsx";

const SWATCHES = ["#2563eb", "#0f766e", "#15803d", "#b45309", "#b91c1c", "#7c3aed", "#1f2937"];

/** The dialog's fields: the widget's settings, its allowed origins one per line, name and campaign. */
type WebForm = Omit<WebChannelConfig, "allowedOrigins"> & {
  name: string;
  origins: string;
  campaignId: string | null;
};

function formOf(channel: Channel | null): WebForm {
  const c = (channel?.config ?? {}) as Partial<WebChannelConfig>;
  return {
    name: channel?.name ?? "",
    origins: (c.allowedOrigins ?? []).join("\n"),
    title: c.title ?? "Chat with us",
    greeting: c.greeting ?? "Hi! How can we help?",
    color: c.color ?? "#2563eb",
    position: c.position ?? "right",
    collectEmail: c.collectEmail ?? false,
    showAgentName: c.showAgentName ?? false,
    campaignId: channel?.campaignId ?? null,
  };
}

function originLines(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((l) => l.trim())
    .filter(Boolean);
}

/** The first thing wrong with the origins as typed (the server checks them again), or null. */
export function originsProblem(text: string): string | null {
  const lines = originLines(text);
  if (lines.length === 0) return "Add at least one website, like https://shop.example";
  for (const line of lines) {
    let url: URL;
    try {
      url = new URL(line);
    } catch {
      return `${line} is not a web address: start it with https://`;
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") return `${line} must start with https://`;
    if (url.pathname !== "/" || url.search || url.hash || line.replace(/\/$/, "") !== url.origin) {
      return `${line}: only the scheme and host (and port), like ${url.origin}`;
    }
  }
  return null;
}

function bodyOf(form: WebForm) {
  return {
    name: form.name.trim(),
    campaignId: form.campaignId,
    config: {
      allowedOrigins: originLines(form.origins).map((o) => o.replace(/\/$/, "")),
      title: form.title.trim(),
      greeting: form.greeting.trim(),
      color: form.color.trim().toLowerCase(),
      position: form.position,
      collectEmail: form.collectEmail,
      showAgentName: form.showAgentName,
    },
  };
}

/** Add channel: type → settings (with the preview for the website chat) → what to paste where. */
export function AddChannelDialog({ onClose }: { onClose: () => void }) {
  const [type, setType] = useState<ChannelType | null>(null);
  const [created, setCreated] = useState<{ channel: Channel; verifyToken: string | null } | null>(null);
  const title = created
    ? `${created.channel.name} is ready`
    : type
      ? `Add channel: ${CHANNEL_TYPE_LABELS[type]}`
      : "Add channel";
  return (
    <Modal
      opened
      onClose={onClose}
      title={title}
      size={type === "web" && !created ? 1000 : "lg"}
      closeButtonProps={{ "aria-label": "Close" }}
    >
      {created ? (
        isProvider(created.channel.type) ? (
          <ProviderReady channel={created.channel} verifyToken={created.verifyToken} onDone={onClose} />
        ) : (
          <Snippet channel={created.channel} onDone={onClose} />
        )
      ) : type === "web" ? (
        <WebChannelForm
          channel={null}
          onBack={() => setType(null)}
          onSaved={(channel) => setCreated({ channel, verifyToken: null })}
        />
      ) : type ? (
        <ProviderChannelForm
          type={type}
          channel={null}
          onBack={() => setType(null)}
          onSaved={(channel, verifyToken) => setCreated({ channel, verifyToken })}
        />
      ) : (
        <TypePicker onPick={setType} />
      )}
    </Modal>
  );
}

export function EditChannelDialog({ channel, onClose }: { channel: Channel; onClose: () => void }) {
  // A provider channel saved with a new verify token: show it to paste into Meta before closing.
  const [newToken, setNewToken] = useState<{ channel: Channel; verifyToken: string } | null>(null);
  const providerType = isProvider(channel.type) ? channel.type : null;
  return (
    <Modal
      opened
      onClose={onClose}
      title={`Edit ${channel.name}`}
      size={providerType ? "lg" : 1000}
      closeButtonProps={{ "aria-label": "Close" }}
    >
      {newToken ? (
        <Stack gap="md">
          <Alert color="green" role="status" title="Saved">
            Paste the new verify token into your Meta app's webhook settings: Meta checks it again.
          </Alert>
          <PasteBack channel={newToken.channel} verifyToken={newToken.verifyToken} />
          <DoneButton onClick={onClose} />
        </Stack>
      ) : providerType ? (
        <Stack gap="md">
          {channel.status === "error" && channel.lastError && (
            <Alert color="red" role="note" title="Last error">
              {channel.lastError}
            </Alert>
          )}
          <PasteBack channel={channel} verifyToken={null} />
          <ProviderChannelForm
            type={providerType}
            channel={channel}
            onSaved={(saved, verifyToken) =>
              verifyToken ? setNewToken({ channel: saved, verifyToken }) : onClose()
            }
          />
        </Stack>
      ) : (
        <Stack gap="md">
          {channel.embedSnippet && <SnippetBox snippet={channel.embedSnippet} />}
          <WebChannelForm channel={channel} onSaved={onClose} />
        </Stack>
      )}
    </Modal>
  );
}

function TypePicker({ onPick }: { onPick: (type: ChannelType) => void }) {
  return (
    <Stack gap="xs" role="group" aria-label="Channel type">
      <Text size="sm" c="dimmed">
        Choose where your customers write to you.
      </Text>
      {CHANNEL_CHOICES.map((choice) => (
        <UnstyledButton
          key={choice.type}
          onClick={() => onPick(choice.type)}
          disabled={!choice.available}
          aria-disabled={!choice.available || undefined}
          p="sm"
          style={{
            border: "1px solid var(--mantine-color-gray-4)",
            borderRadius: "var(--mantine-radius-md)",
            cursor: choice.available ? "pointer" : "not-allowed",
          }}
        >
          <Group wrap="nowrap" gap="sm" align="flex-start">
            <ChannelIcon kind={choice.type} size={22} />
            <div style={{ flex: 1 }}>
              <Group gap="xs">
                <Text fw={600} size="sm" c={choice.available ? undefined : "#495057"}>
                  {CHANNEL_TYPE_LABELS[choice.type]}
                </Text>
                {!choice.available && (
                  <Badge size="xs" variant="outline" color="dark">
                    Coming soon
                  </Badge>
                )}
              </Group>
              <Text size="xs" c="#495057">
                {choice.description}
              </Text>
            </div>
          </Group>
        </UnstyledButton>
      ))}
    </Stack>
  );
}

function WebChannelForm({
  channel,
  onBack,
  onSaved,
}: {
  channel: Channel | null;
  onBack?: () => void;
  onSaved: (channel: Channel) => void;
}) {
  const webForm = useForm<WebForm>({ initialValues: formOf(channel) });
  const form = webForm.values;
  // The problems show once Save was tried, then follow the typing.
  const [touched, setTouched] = useState(false);
  const save = useSaveChannel(channel?.id ?? null);
  const nameProblem = form.name.trim() ? null : "Give the channel a name, like Website";
  const originProblem = originsProblem(form.origins);
  const colorProblem = /^#[0-9a-f]{6}$/i.test(form.color.trim()) ? null : "A colour like #2563eb";
  const ready = !nameProblem && !originProblem && !colorProblem;

  return (
    <ChannelForm
      ready={ready}
      save={save}
      editing={Boolean(channel)}
      onBack={onBack}
      onTried={() => setTouched(true)}
      onSave={() =>
        save.mutate(channel ? bodyOf(form) : { type: "web", ...bodyOf(form) }, {
          onSuccess: (saved) => onSaved(saved),
        })
      }
    >
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <Stack gap="sm">
          <TextInput
            label="Channel name"
            description="For you and your team, in the inbox and the dashboard."
            placeholder="Website"
            maxLength={100}
            {...webForm.getInputProps("name")}
            error={touched ? nameProblem : undefined}
            data-autofocus
          />
          <Textarea
            label="Allowed websites"
            description="The origins allowed to show the chat, one per line: scheme and host (and port), no path."
            placeholder={"https://shop.example\nhttps://www.shop.example"}
            autosize
            minRows={2}
            maxRows={6}
            {...webForm.getInputProps("origins")}
            error={touched ? originProblem : undefined}
          />
          <TextInput
            label="Title"
            description="The heading of the chat panel."
            maxLength={80}
            {...webForm.getInputProps("title")}
          />
          <Textarea
            label="Greeting"
            description="The first bubble a visitor sees."
            autosize
            minRows={2}
            maxLength={500}
            {...webForm.getInputProps("greeting")}
          />
          <Group grow align="flex-start">
            <ColorInput
              label="Colour"
              format="hex"
              swatches={SWATCHES}
              withEyeDropper={false}
              {...webForm.getInputProps("color")}
              error={touched ? colorProblem : undefined}
            />
            <Radio.Group label="Position" {...webForm.getInputProps("position")}>
              <Group gap="md" mt={8}>
                <Radio value="right" label="Bottom right" />
                <Radio value="left" label="Bottom left" />
              </Group>
            </Radio.Group>
          </Group>
          <Checkbox
            label="Ask for an e-mail when no one answers"
            {...webForm.getInputProps("collectEmail", { type: "checkbox" })}
          />
          <Checkbox
            label="Show the first name of the person who answers"
            description="Otherwise visitors see only your business; they never see anyone's full name."
            {...webForm.getInputProps("showAgentName", { type: "checkbox" })}
          />
          <CampaignSelect value={form.campaignId} onChange={(v) => webForm.setFieldValue("campaignId", v)} />
        </Stack>
        <Stack gap="xs">
          <Text size="sm" fw={500}>
            Live preview
          </Text>
          <WidgetPreview settings={form} />
        </Stack>
      </SimpleGrid>
    </ChannelForm>
  );
}

function SnippetBox({ snippet }: { snippet: string }) {
  return (
    <Paper withBorder p="sm" radius="md">
      <Text size="sm" fw={500} mb={4}>
        Snippet
      </Text>
      <Text size="xs" c="#495057" mb="xs">
        Paste it before &lt;/body&gt; on every page of your website where the chat should appear.
      </Text>
      <CopyableCode value={snippet} copyLabel="Copy snippet" testId="embed-snippet" />
    </Paper>
  );
}

function Snippet({ channel, onDone }: { channel: Channel; onDone: () => void }) {
  return (
    <Stack gap="sm">
      <Alert color="green" role="status" title="Channel created">
        Paste this snippet on your website. The chat button appears on the allowed websites only.
      </Alert>
      {channel.embedSnippet && <SnippetBox snippet={channel.embedSnippet} />}
      <DoneButton onClick={onDone} />
    </Stack>
  );
}
