// A campaign's custom functions: the business's own endpoints the LLM engine may call in the middle of a
// reply (look up an order, check a slot). Edited here as part of the campaign (saved with its Save
// button); a saved function can be tried with a signed test call.
import {
  Anchor,
  Badge,
  Button,
  Code,
  Group,
  Modal,
  NumberInput,
  Paper,
  Stack,
  Text,
  Textarea,
  TextInput,
} from "@mantine/core";
import { useState } from "react";
import { Link } from "react-router";
import { ErrorAlert } from "../../components/States.tsx";
import type { BotFunction, Campaign, FunctionTestResult } from "../../lib/api-types.ts";
import { useTestFunction } from "../../lib/queries/campaigns.ts";
import { RemoveRowButton, RowsSection } from "./CampaignSection.tsx";
import { useFormRows } from "./campaignForm.ts";

/** At most this many functions on a campaign (the server refuses more). */
export const MAX_FUNCTIONS = 10;
const DEFAULT_PARAMETERS = { type: "object", properties: {} };

/** One function as typed: the parameters stay text until they parse. */
export interface FunctionDraft {
  /** A key per row, kept in step with adds and removals (not sent). */
  key: number;
  name: string;
  description: string;
  url: string;
  timeoutMs: number | string;
  parameters: string;
}

const pretty = (v: unknown) => JSON.stringify(v, null, 2);

export function functionDraftsOf(functions: BotFunction[] | undefined): FunctionDraft[] {
  return (functions ?? []).map((f, i) => ({
    key: i,
    name: f.name,
    description: f.description,
    url: f.url,
    timeoutMs: f.timeoutMs,
    parameters: pretty(f.parameters),
  }));
}

/** What is wrong with the parameters as typed, or null (the server checks the schema itself). */
export function parametersError(text: string): string | null {
  if (!text.trim()) return null; // empty: no parameters
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return `Not valid JSON: ${err instanceof Error ? err.message : "cannot be read"}`;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return 'Give a JSON object: a JSON Schema with "type": "object"';
  }
  return null;
}

/** The functions to save, or null when one's parameters do not parse (shown next to the field). */
export function functionsOf(drafts: FunctionDraft[]): BotFunction[] | null {
  if (drafts.some((d) => parametersError(d.parameters) !== null)) return null;
  return drafts.map((d) => ({
    name: d.name.trim(),
    description: d.description.trim(),
    url: d.url.trim(),
    timeoutMs: typeof d.timeoutMs === "number" ? d.timeoutMs : Number(d.timeoutMs) || 5000,
    parameters: d.parameters.trim()
      ? (JSON.parse(d.parameters) as Record<string, unknown>)
      : { ...DEFAULT_PARAMETERS },
  }));
}

/** Arguments to start a test with: each declared property, empty of its type. */
function exampleArguments(fn: BotFunction): string {
  const props = (fn.parameters as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const example: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(props)) {
    const type = Array.isArray(schema?.type) ? schema.type[0] : schema?.type;
    example[name] =
      type === "number" || type === "integer"
        ? 0
        : type === "boolean"
          ? false
          : type === "array"
            ? []
            : type === "object"
              ? {}
              : "";
  }
  return pretty(example);
}

const sameFunction = (draft: FunctionDraft, saved: BotFunction) => {
  const typed = functionsOf([draft])?.[0];
  return typed !== undefined && JSON.stringify(typed) === JSON.stringify(saved);
};

/** The campaign form's functions, with a test call of a saved one. */
export function FunctionsSection({
  campaign,
}: {
  /** The saved campaign: its functions are the ones a test calls. */
  campaign: Campaign;
}) {
  const [testing, setTesting] = useState<BotFunction | null>(null);
  const saved = campaign.functions ?? [];
  const { form, rows: drafts, add: addRow, remove } = useFormRows("functions");
  const { engine } = form.values;
  const add = () =>
    addRow({
      name: "",
      description: "",
      url: "",
      timeoutMs: 5000,
      parameters: pretty(DEFAULT_PARAMETERS),
    });

  return (
    <RowsSection
      headingId="functions-heading"
      title="Functions"
      addLabel="Add function"
      onAdd={add}
      canAdd={drafts.length < MAX_FUNCTIONS}
      intro={
        <>
          Your own endpoints the bot may call while it answers, such as an order lookup. Only the LLM engine
          calls functions. Each call is a POST signed like your webhooks (the{" "}
          <Anchor component={Link} to="/settings" underline="always">
            signing secret
          </Anchor>{" "}
          in Settings); its answer goes to the model, never straight to the customer. When a call fails, the
          bot says a person will follow up and alerts your team. Up to {MAX_FUNCTIONS} functions, 3 calls a
          reply.
        </>
      }
      engineWarning={
        engine === "builtin" &&
        drafts.length > 0 &&
        "This campaign uses the builtin engine, which never calls functions. Choose the LLM engine for them."
      }
      empty="No functions: the bot answers from its instructions and knowledge only."
      rowCount={drafts.length}
      after={testing && <TestDialog campaignId={campaign.id} fn={testing} onClose={() => setTesting(null)} />}
    >
      {drafts.map((d, i) => {
        const savedFn = saved.find((f) => f.name === d.name.trim());
        const field = (name: keyof FunctionDraft) => form.getInputProps(`functions.${i}.${name}`);
        const label = `Function ${i + 1}${d.name.trim() ? `: ${d.name.trim()}` : ""}`;
        return (
          <Paper key={d.key} withBorder p="sm" radius="sm" component="fieldset" aria-label={label}>
            <Stack gap={6}>
              <Group grow align="flex-start">
                <TextInput
                  label="Name"
                  description="Letters, digits and _, like order_status"
                  {...field("name")}
                  maxLength={64}
                />
                <NumberInput
                  label="Timeout (ms)"
                  description="1,000 to 15,000"
                  min={1000}
                  max={15000}
                  step={500}
                  {...field("timeoutMs")}
                />
              </Group>
              <Textarea
                label="Description"
                description="When the bot should use it, as you would tell a new colleague"
                autosize
                minRows={1}
                {...field("description")}
                maxLength={1000}
              />
              <TextInput
                label="URL"
                description="https:// (http:// only for addresses your operator allows)"
                placeholder="https://shop.example/parley/order-status"
                type="url"
                {...field("url")}
                maxLength={2000}
              />
              <Textarea
                label="Parameters (JSON Schema)"
                description='What the bot must pass: a JSON Schema with "type": "object"'
                autosize
                minRows={3}
                maxRows={16}
                {...field("parameters")}
                error={parametersError(d.parameters)}
                styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
                spellCheck={false}
              />
              <Group justify="space-between" mt={4}>
                <Group gap="xs">
                  {savedFn && (
                    <Button size="compact-sm" variant="default" onClick={() => setTesting(savedFn)}>
                      Test
                    </Button>
                  )}
                  {!savedFn ? (
                    <Text size="xs" c="dimmed">
                      Save the campaign to test it.
                    </Text>
                  ) : (
                    !sameFunction(d, savedFn) && (
                      <Text size="xs" c="dimmed">
                        Test calls the saved version; save to test your changes.
                      </Text>
                    )
                  )}
                </Group>
                <RemoveRowButton onClick={() => remove(i)}>Remove function</RemoveRowButton>
              </Group>
            </Stack>
          </Paper>
        );
      })}
    </RowsSection>
  );
}

const STATUS_LABEL: Record<FunctionTestResult["status"], string> = {
  ok: "OK",
  error: "Error",
  timeout: "Timed out",
  blocked: "Blocked address",
};

/** A signed test call of the saved function with arguments typed here (no conversation, nothing sent). */
function TestDialog({
  campaignId,
  fn,
  onClose,
}: {
  campaignId: string;
  fn: BotFunction;
  onClose: () => void;
}) {
  const [args, setArgs] = useState(() => exampleArguments(fn));
  const argsError = (() => {
    if (!args.trim()) return null;
    try {
      const v = JSON.parse(args) as unknown;
      return v !== null && typeof v === "object" && !Array.isArray(v) ? null : "Give a JSON object";
    } catch (err) {
      return `Not valid JSON: ${err instanceof Error ? err.message : "cannot be read"}`;
    }
  })();
  const test = useTestFunction(campaignId, fn.name);
  const r = test.data;
  return (
    <Modal
      opened
      onClose={onClose}
      title={`Test ${fn.name}`}
      size="lg"
      closeButtonProps={{ "aria-label": "Close" }}
    >
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          Calls {fn.url} now, signed, with "test": true and no conversation. Nothing reaches a customer.
        </Text>
        <Textarea
          label="Arguments (JSON)"
          autosize
          minRows={3}
          maxRows={12}
          value={args}
          onChange={(e) => setArgs(e.currentTarget.value)}
          error={argsError}
          styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
          spellCheck={false}
        />
        <Group justify="flex-end">
          <Button onClick={() => test.mutate(args)} loading={test.isPending} disabled={argsError !== null}>
            Send test
          </Button>
        </Group>
        <ErrorAlert error={test.error} title="Not sent" />
        {r && !test.isPending && (
          <Paper withBorder p="sm" radius="sm" role="status" aria-label="Test result">
            <Group gap="xs" mb={6}>
              <Badge color={r.status === "ok" ? "green.9" : "red.9"} variant="light">
                {STATUS_LABEL[r.status] ?? r.status}
              </Badge>
              <Text size="sm">{r.statusCode !== null ? `HTTP ${r.statusCode}` : "No HTTP answer"}</Text>
              <Text size="sm" c="dimmed">
                {r.durationMs} ms
              </Text>
            </Group>
            {r.error && (
              <Text size="sm" c="red.9" mb={4}>
                {r.error}
              </Text>
            )}
            {r.response !== null && (
              <>
                <Text size="xs" fw={600} mb={2}>
                  Response
                </Text>
                <Code block fz="xs" style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>
                  {r.response || "(empty)"}
                </Code>
              </>
            )}
          </Paper>
        )}
      </Stack>
    </Modal>
  );
}
