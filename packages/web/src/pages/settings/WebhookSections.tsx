import { Alert, Button, type ButtonProps, Code, Group, Text, TextInput } from "@mantine/core";
import { useState } from "react";
import { ConfirmAlert } from "../../components/ConfirmAlert.tsx";
import { CopyableCode } from "../../components/CopyableCode.tsx";
import { ErrorText } from "../../components/ErrorText.tsx";
import { Section } from "../../components/Section.tsx";
import { ErrorAlert } from "../../components/States.tsx";
import { errorMessage } from "../../lib/api.ts";
import type { Settings } from "../../lib/api-types.ts";
import { notify } from "../../lib/notify.ts";
import {
  type SettingsPatch,
  useRevealWebhookSecret,
  useRotateWebhookSecret,
  useTestWebhook,
  useUpdateSettings,
} from "../../lib/queries/settings.ts";

/** The custom channel webhook: where replies are POSTed, and a signed test event to check it. */
export function WebhookSection({ settings }: { settings: Settings }) {
  const test = useTestWebhook();

  return (
    <Section
      title="Custom channel webhook"
      description="Every reply (from the bot, a person or the API) is POSTed here, signed, and marked Sent or Failed."
    >
      <WebhookUrlForm
        label="Webhook URL"
        placeholder="https://example.com/parley/webhook"
        saved={settings.webhookUrl}
        patch={(webhookUrl) => ({ webhookUrl })}
        submitLabel="Save"
        savedMessage="Webhook URL saved"
      />
      <Group gap="xs">
        <Button
          variant="light"
          w="fit-content"
          loading={test.isPending}
          disabled={!settings.webhookUrl}
          onClick={() => test.mutate()}
        >
          Send test event
        </Button>
        {!settings.webhookUrl && (
          <Text size="sm" c="dimmed">
            Save a webhook URL first.
          </Text>
        )}
      </Group>
      <ErrorAlert error={test.error} />
      {test.data && (
        <Alert
          color={test.data.ok ? "green" : "red"}
          title={
            test.data.statusCode !== null
              ? `The receiver answered ${test.data.statusCode}`
              : "The receiver did not answer"
          }
          role="status"
          aria-label="Test event result"
        >
          {test.data.error && <Text size="sm">{test.data.error}</Text>}
          {test.data.statusCode !== null && (
            <>
              <Text size="sm" mb={4}>
                First bytes of its answer:
              </Text>
              <Code block>{test.data.body || "(empty)"}</Code>
            </>
          )}
        </Alert>
      )}
    </Section>
  );
}

/** The signing secret of the webhooks: hidden until revealed; rotating it breaks the old signatures. */
export function SigningSecretSection() {
  const [secret, setSecret] = useState<string | null>(null);
  const [confirmRotate, setConfirmRotate] = useState(false);
  const reveal = useRevealWebhookSecret();
  const rotate = useRotateWebhookSecret();
  return (
    <Section
      title="Signing secret"
      description="Your receiver checks each webhook's signature with it (Standard Webhooks)."
    >
      {secret ? (
        <CopyableCode value={secret} copyLabel="Copy secret">
          <Button size="xs" variant="default" onClick={() => setSecret(null)}>
            Hide
          </Button>
        </CopyableCode>
      ) : (
        <Text size="sm" c="dimmed">
          whsec_••••••••
        </Text>
      )}
      <ErrorText error={reveal.error ?? rotate.error} />
      {confirmRotate ? (
        <ConfirmAlert
          title="Rotate the signing secret?"
          label="Confirm rotation"
          confirmLabel="Rotate"
          busy={rotate.isPending}
          onConfirm={() =>
            rotate.mutate(undefined, {
              onSuccess: (r) => {
                setSecret(r.webhookSecret);
                setConfirmRotate(false);
              },
            })
          }
          onCancel={() => setConfirmRotate(false)}
        >
          <Text size="sm" mb="sm">
            Webhooks are signed with the new secret at once; update your receiver right after.
          </Text>
        </ConfirmAlert>
      ) : (
        <Group gap="xs">
          {!secret && (
            <Button
              variant="light"
              loading={reveal.isPending}
              onClick={() => reveal.mutate(undefined, { onSuccess: (r) => setSecret(r.webhookSecret) })}
            >
              Reveal signing secret
            </Button>
          )}
          <Button variant="default" onClick={() => setConfirmRotate(true)}>
            Rotate signing secret
          </Button>
        </Group>
      )}
    </Section>
  );
}

/** Account events (credits, sub-accounts...) go to their own URL. */
export function EventsWebhookSection({ settings }: { settings: Settings }) {
  return (
    <Section
      title="Account events"
      description="Account events (for example low credits) are POSTed to this URL, signed."
    >
      <WebhookUrlForm
        label="Account events URL"
        placeholder="https://example.com/parley/events"
        saved={settings.eventsWebhookUrl}
        patch={(eventsWebhookUrl) => ({ eventsWebhookUrl })}
        submitLabel="Update events URL"
        submitVariant="light"
        savedMessage="Account events URL updated"
      />
    </Section>
  );
}

/**
 * One webhook address of the settings, with its save button beside it: empty clears it, and the
 * server's refusal shows under the field. The button waits for a change (or a failed save).
 */
function WebhookUrlForm({
  label,
  placeholder,
  saved,
  patch,
  submitLabel,
  submitVariant,
  savedMessage,
}: {
  label: string;
  placeholder: string;
  saved: string | null;
  patch: (url: string | null) => SettingsPatch;
  submitLabel: string;
  submitVariant?: ButtonProps["variant"];
  savedMessage: string;
}) {
  const [url, setUrl] = useState(saved ?? "");
  const update = useUpdateSettings();
  const dirty = url.trim() !== (saved ?? "");
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        update.mutate(patch(url.trim() || null), { onSuccess: () => notify(savedMessage) });
      }}
      noValidate
    >
      <Group align="flex-start" gap="xs" wrap="nowrap">
        <TextInput
          label={label}
          placeholder={placeholder}
          type="url"
          style={{ flex: 1 }}
          value={url}
          onChange={(e) => setUrl(e.currentTarget.value)}
          error={update.isError ? errorMessage(update.error) : undefined}
        />
        <Button
          type="submit"
          variant={submitVariant}
          mt={25}
          loading={update.isPending}
          disabled={!dirty && !update.isError}
        >
          {submitLabel}
        </Button>
      </Group>
    </form>
  );
}
