import { Alert, Button, Code, CopyButton, Group, Text, TextInput } from "@mantine/core";
import { useState } from "react";
import { ErrorAlert } from "../../components/States.tsx";
import { errorMessage } from "../../lib/api.ts";
import type { Settings } from "../../lib/api-types.ts";
import { notify } from "../../lib/notify.ts";
import {
  useRevealWebhookSecret,
  useRotateWebhookSecret,
  useTestWebhook,
  useUpdateSettings,
} from "../../lib/queries/settings.ts";
import { Section } from "./Section.tsx";

/** The custom channel webhook: where replies are POSTed, and a signed test event to check it. */
export function WebhookSection({ settings }: { settings: Settings }) {
  const [url, setUrl] = useState(settings.webhookUrl ?? "");
  const update = useUpdateSettings();
  const test = useTestWebhook();
  const dirty = url.trim() !== (settings.webhookUrl ?? "");

  const save = (event: React.FormEvent) => {
    event.preventDefault();
    update.mutate({ webhookUrl: url.trim() || null }, { onSuccess: () => notify("Webhook URL saved") });
  };

  return (
    <Section
      title="Custom channel webhook"
      description="Every reply (from the bot, a person or the API) is POSTed here, signed, and marked Sent or Failed."
    >
      <form onSubmit={save} noValidate>
        <Group align="flex-start" gap="xs" wrap="nowrap">
          <TextInput
            label="Webhook URL"
            placeholder="https://example.com/parley/webhook"
            type="url"
            style={{ flex: 1 }}
            value={url}
            onChange={(e) => setUrl(e.currentTarget.value)}
            error={update.isError ? errorMessage(update.error) : undefined}
          />
          <Button type="submit" mt={25} loading={update.isPending} disabled={!dirty && !update.isError}>
            Save
          </Button>
        </Group>
      </form>
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
  const failed = reveal.error ?? rotate.error;
  return (
    <Section
      title="Signing secret"
      description="Your receiver checks each webhook's signature with it (Standard Webhooks)."
    >
      {secret ? (
        <Group gap="xs" wrap="nowrap">
          <Code block style={{ flex: 1, wordBreak: "break-all" }}>
            {secret}
          </Code>
          <CopyButton value={secret}>
            {({ copied, copy }) => (
              <Button size="xs" variant="light" onClick={copy}>
                {copied ? "Copied" : "Copy secret"}
              </Button>
            )}
          </CopyButton>
          <Button size="xs" variant="default" onClick={() => setSecret(null)}>
            Hide
          </Button>
        </Group>
      ) : (
        <Text size="sm" c="dimmed">
          whsec_••••••••
        </Text>
      )}
      {failed && (
        <Text size="sm" c="red" role="alert">
          {errorMessage(failed)}
        </Text>
      )}
      {confirmRotate ? (
        <Alert
          color="red"
          title="Rotate the signing secret?"
          role="alertdialog"
          aria-label="Confirm rotation"
        >
          <Text size="sm" mb="sm">
            Webhooks are signed with the new secret at once; update your receiver right after.
          </Text>
          <Group gap="xs">
            <Button
              color="red"
              loading={rotate.isPending}
              onClick={() =>
                rotate.mutate(undefined, {
                  onSuccess: (r) => {
                    setSecret(r.webhookSecret);
                    setConfirmRotate(false);
                  },
                })
              }
            >
              Rotate
            </Button>
            <Button variant="default" onClick={() => setConfirmRotate(false)}>
              Cancel
            </Button>
          </Group>
        </Alert>
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
  const [url, setUrl] = useState(settings.eventsWebhookUrl ?? "");
  const update = useUpdateSettings();
  const dirty = url.trim() !== (settings.eventsWebhookUrl ?? "");
  return (
    <Section
      title="Account events"
      description="Account events (for example low credits) are POSTed to this URL, signed."
    >
      <form
        onSubmit={(event) => {
          event.preventDefault();
          update.mutate(
            { eventsWebhookUrl: url.trim() || null },
            {
              onSuccess: () => notify("Account events URL updated"),
            },
          );
        }}
        noValidate
      >
        <Group align="flex-start" gap="xs" wrap="nowrap">
          <TextInput
            label="Account events URL"
            placeholder="https://example.com/parley/events"
            type="url"
            style={{ flex: 1 }}
            value={url}
            onChange={(e) => setUrl(e.currentTarget.value)}
            error={update.isError ? errorMessage(update.error) : undefined}
          />
          <Button
            type="submit"
            variant="light"
            mt={25}
            loading={update.isPending}
            disabled={!dirty && !update.isError}
          >
            Update events URL
          </Button>
        </Group>
      </form>
    </Section>
  );
}
