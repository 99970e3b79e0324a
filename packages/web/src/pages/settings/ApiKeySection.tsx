import { Button, Code, Text } from "@mantine/core";
import { useState } from "react";
import { ConfirmAlert } from "../../components/ConfirmAlert.tsx";
import { ErrorText } from "../../components/ErrorText.tsx";
import { NewApiKey } from "../../components/NewApiKey.tsx";
import { Section } from "../../components/Section.tsx";
import type { Settings } from "../../lib/api-types.ts";
import { fullTime } from "../../lib/format.ts";
import { useGenerateApiKey } from "../../lib/queries/settings.ts";

/** Generate a new API key (the previous one stops working at once); the key is shown once. */
export function ApiKeySection({ settings }: { settings: Settings }) {
  const [confirming, setConfirming] = useState(false);
  const [newKey, setNewKey] = useState<string | null>(null);
  const generate = useGenerateApiKey();

  return (
    <Section
      title="API key"
      description="Your systems use it to call the Parley API (/v1). Keep it on your server; never put it in a web page or an app."
    >
      <Text size="sm">
        {settings.apiKey ? (
          <>
            Current key starts with <Code>{settings.apiKey.prefix}</Code>, created{" "}
            {fullTime(settings.apiKey.createdAt)}.
          </>
        ) : (
          "No API key yet."
        )}
      </Text>
      {newKey && (
        <NewApiKey apiKey={newKey} title="Your new API key" note="Copy it now: it is shown only once." />
      )}
      {confirming ? (
        <ConfirmAlert
          title="Generate a new API key?"
          label="Confirm new API key"
          confirmLabel="Generate"
          busy={generate.isPending}
          onConfirm={() =>
            generate.mutate(undefined, {
              onSuccess: (res) => {
                setNewKey(res.apiKey);
                setConfirming(false);
              },
            })
          }
          onCancel={() => setConfirming(false)}
          focusConfirm
        >
          <Text size="sm" mb="sm">
            The previous key stops working at once: anything still using it will be refused until you give it
            the new key.
          </Text>
          <ErrorText error={generate.error} mb="sm" />
        </ConfirmAlert>
      ) : (
        <Button w="fit-content" onClick={() => setConfirming(true)}>
          Generate API key
        </Button>
      )}
    </Section>
  );
}
