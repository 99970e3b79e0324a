import { Button, Group, Stack, Switch, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { ErrorText } from "../../components/ErrorText.tsx";
import { PasswordField } from "../../components/PasswordField.tsx";
import { Section } from "../../components/Section.tsx";
import { ErrorAlert } from "../../components/States.tsx";
import type { Settings } from "../../lib/api-types.ts";
import { notify } from "../../lib/notify.ts";
import { useUpdateSettings } from "../../lib/queries/settings.ts";

/** The account-wide bot switch. */
export function BotSection({ settings }: { settings: Settings }) {
  const update = useUpdateSettings();
  return (
    <Section
      title="AI bot"
      description="When on, the bot answers incoming messages with your campaigns' knowledge. People can still pause it per conversation."
    >
      <Switch
        label="Bot answers incoming messages"
        checked={settings.botActive}
        disabled={update.isPending}
        onChange={(e) => update.mutate({ botActive: e.currentTarget.checked })}
      />
      <ErrorText error={update.error} />
    </Section>
  );
}

/** Any OpenAI-compatible provider for the LLM engine; the key is write-only. */
export function LlmSection({ settings }: { settings: Settings }) {
  const form = useForm({
    initialValues: { baseUrl: settings.llm.baseUrl ?? "", model: settings.llm.model ?? "", apiKey: "" },
  });
  const update = useUpdateSettings();

  const submit = ({ baseUrl, model, apiKey }: typeof form.values) => {
    update.mutate(
      {
        llm: {
          baseUrl: baseUrl.trim() || null,
          model: model.trim() || null,
          ...(apiKey ? { apiKey } : {}),
        },
      },
      {
        onSuccess: () => {
          form.setFieldValue("apiKey", "");
          notify("LLM settings updated");
        },
      },
    );
  };

  return (
    <Section
      title="LLM provider"
      description="Used by campaigns whose engine is the LLM. Any OpenAI-compatible endpoint works."
    >
      <form onSubmit={form.onSubmit(submit)} noValidate>
        <Stack gap="sm">
          <ErrorAlert error={update.error} />
          <TextInput
            label="LLM base URL"
            placeholder="https://api.openai.com/v1"
            {...form.getInputProps("baseUrl")}
          />
          <TextInput label="LLM model" placeholder="gpt-4o-mini" {...form.getInputProps("model")} />
          <PasswordField
            label="LLM API key"
            description={
              settings.llm.apiKeySet
                ? "A key is stored. Type a new one to replace it; it is never shown again."
                : "Stored write-only: it is never shown again."
            }
            autoComplete="off"
            {...form.getInputProps("apiKey")}
          />
          <Group gap="xs">
            <Button type="submit" variant="light" loading={update.isPending}>
              Update LLM settings
            </Button>
            {settings.llm.apiKeySet && (
              <Button
                variant="subtle"
                color="red"
                onClick={() => update.mutate({ llm: { apiKey: null } })}
                disabled={update.isPending}
              >
                Remove stored key
              </Button>
            )}
          </Group>
        </Stack>
      </form>
    </Section>
  );
}
