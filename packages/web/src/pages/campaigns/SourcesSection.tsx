// The campaign's knowledge sources: files (a handbook, a price list) and web pages the bot answers from,
// besides the knowledge typed on this page. The server reads each into passages in the background;
// the list follows it ("Processing", then "Ready" or "Error" with the reason). Changes here are saved at
// once, apart from the campaign's Save button; only owners and admins make them.
import {
  Anchor,
  Badge,
  Button,
  FileButton,
  Group,
  Radio,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
} from "@mantine/core";
import { useRef, useState } from "react";
import { ConfirmModal } from "../../components/FormModal.tsx";
import { PagedTable } from "../../components/PagedTable.tsx";
import { Section } from "../../components/Section.tsx";
import { ErrorAlert } from "../../components/States.tsx";
import { errorMessage } from "../../lib/api.ts";
import type { Source } from "../../lib/api-types.ts";
import { sizeLabel } from "../../lib/files.ts";
import { fullTime, shortTime } from "../../lib/format.ts";
import {
  useCreateSource,
  useDeleteSource,
  useResyncSource,
  useSources,
  useUpdateSource,
} from "../../lib/queries/sources.ts";

/** The file types the server reads, by extension (a browser often gives no type for .md). */
const FILE_TYPES: Record<string, string> = {
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  md: "text/markdown",
  markdown: "text/markdown",
  html: "text/html",
  htm: "text/html",
  txt: "text/plain",
};
/** 20 MB, the server's cap for a file source. */
export const MAX_SOURCE_BYTES = 20 * 1024 * 1024;

/** The content type a file is sent as, or why it cannot be uploaded. */
export function sourceFileCheck(file: File): { contentType: string } | { problem: string } {
  const extension = file.name.toLowerCase().split(".").at(-1) ?? "";
  const contentType = FILE_TYPES[extension] ?? Object.values(FILE_TYPES).find((t) => t === file.type);
  if (!contentType) {
    return { problem: `${file.name} cannot be read: upload a PDF, DOCX, Markdown, HTML or plain text file.` };
  }
  if (file.size > MAX_SOURCE_BYTES) {
    return {
      problem: `${file.name} is ${sizeLabel(file.size)}; files can be at most ${sizeLabel(MAX_SOURCE_BYTES)}.`,
    };
  }
  if (file.size === 0) return { problem: `${file.name} is empty.` };
  return { contentType };
}

/** Why an address cannot be added, or null when it is an http(s) one. */
function urlProblem(url: string): string | null {
  try {
    const { protocol } = new URL(url);
    if (protocol === "http:" || protocol === "https:") return null;
  } catch {}
  return "Give a web address starting with https://, like https://example.com/faq";
}

const TYPE_LABELS: Record<Source["type"], string> = { file: "File", url: "Web page", sitemap: "Sitemap" };
const STATUS: Record<Source["status"], { label: string; color: string }> = {
  processing: { label: "Processing", color: "blue" },
  ready: { label: "Ready", color: "green" },
  error: { label: "Error", color: "red" },
};

export function SourcesSection({ campaignId, editable }: { campaignId: string; editable: boolean }) {
  const sources = useSources(campaignId);
  const columns = ["Source", "Type", "Status", "Passages", "Last synced", "Daily re-sync"];
  return (
    <Section
      title="Knowledge sources"
      description="Files and web pages the bot answers from, besides the knowledge above. Each is read into passages in the background; added and changed at once, without the Save button."
    >
      {editable && <AddSources campaignId={campaignId} />}
      <PagedTable
        query={sources}
        rows={sources.data}
        loadingLabel="Loading the knowledge sources"
        empty={
          <Text size="sm" c="dimmed">
            No sources yet: upload a handbook or add a web page.
          </Text>
        }
        label="Knowledge sources"
        columns={editable ? [...columns, "Actions"] : columns}
        minWidth={760}
        cells={(source) => <SourceCells source={source} editable={editable} />}
      />
    </Section>
  );
}

/** "Upload a file", and a page or sitemap address. */
function AddSources({ campaignId }: { campaignId: string }) {
  const upload = useCreateSource(campaignId);
  const addUrl = useCreateSource(campaignId);
  const [problem, setProblem] = useState<string | null>(null);
  // The hidden input is emptied after each pick, so the same file can be uploaded again.
  const reset = useRef<() => void>(null);
  const [url, setUrl] = useState("");
  const [kind, setKind] = useState<"url" | "sitemap">("url");
  const [urlError, setUrlError] = useState<string | null>(null);

  const choose = (file: File | null) => {
    reset.current?.();
    if (!file) return;
    upload.reset();
    const check = sourceFileCheck(file);
    setProblem("problem" in check ? check.problem : null);
    if ("contentType" in check) upload.mutate({ type: "file", file, contentType: check.contentType });
  };
  const add = () => {
    const address = url.trim();
    const why = urlProblem(address);
    setUrlError(why);
    if (why) return;
    addUrl.mutate({ type: kind, url: address }, { onSuccess: () => setUrl("") });
  };

  return (
    <Stack gap="xs">
      <Group gap="xs">
        <FileButton resetRef={reset} onChange={choose} accept=".pdf,.docx,.md,.markdown,.html,.htm,.txt">
          {(props) => (
            <Button {...props} variant="light" loading={upload.isPending}>
              Upload a file
            </Button>
          )}
        </FileButton>
        <Text size="xs" c="dimmed">
          PDF, DOCX, Markdown, HTML or plain text, up to {sizeLabel(MAX_SOURCE_BYTES)}
        </Text>
      </Group>
      <ErrorAlert error={problem ?? upload.error} title="Not uploaded" />
      <Group gap="sm" align="flex-start">
        <TextInput
          label="Page or sitemap URL"
          type="url"
          placeholder="https://example.com/faq"
          maxLength={2000}
          style={{ flex: 1, minWidth: 240 }}
          value={url}
          onChange={(e) => {
            setUrl(e.currentTarget.value);
            setUrlError(null);
            addUrl.reset();
          }}
          // Inside the campaign's form: Enter adds the address instead of saving the campaign.
          onKeyDown={(e) => {
            if (e.key !== "Enter") return;
            e.preventDefault();
            add();
          }}
          error={urlError ?? (addUrl.error ? errorMessage(addUrl.error) : undefined)}
        />
        <Radio.Group label="What to read" value={kind} onChange={(v) => setKind(v as typeof kind)}>
          <Group gap="sm" mt={8}>
            <Radio value="url" label="One page" />
            <Radio value="sitemap" label="Sitemap" />
          </Group>
        </Radio.Group>
        <Button variant="light" mt={25} loading={addUrl.isPending} disabled={!url.trim()} onClick={add}>
          Add URL
        </Button>
      </Group>
    </Stack>
  );
}

function SourceCells({ source, editable }: { source: Source; editable: boolean }) {
  const update = useUpdateSource(source.campaignId);
  const resync = useResyncSource(source.campaignId);
  const [confirming, setConfirming] = useState(false);
  const status = STATUS[source.status];
  const web = source.type !== "file";
  return (
    <>
      <Table.Td style={{ maxWidth: 280 }}>
        <Text size="sm" fw={600} style={{ overflowWrap: "anywhere" }}>
          {source.name}
        </Text>
        {source.url && source.url !== source.name ? (
          <Anchor
            href={source.url}
            target="_blank"
            rel="noreferrer"
            size="xs"
            style={{ overflowWrap: "anywhere" }}
          >
            {source.url}
          </Anchor>
        ) : (
          <Text size="xs" c="dimmed">
            {sizeLabel(source.bytes)}
          </Text>
        )}
      </Table.Td>
      <Table.Td>{TYPE_LABELS[source.type]}</Table.Td>
      <Table.Td style={{ minWidth: 110 }}>
        <Badge variant="light" color={status.color} style={{ overflow: "visible" }}>
          {status.label}
        </Badge>
        {source.status === "error" && source.error && (
          <Text size="xs" c="red.9" mt={4} style={{ overflowWrap: "anywhere" }}>
            {source.error}
          </Text>
        )}
      </Table.Td>
      <Table.Td style={{ whiteSpace: "nowrap" }}>
        {source.passages} {source.passages === 1 ? "passage" : "passages"}
      </Table.Td>
      <Table.Td style={{ whiteSpace: "nowrap" }}>
        {source.lastSyncedAt ? (
          <time dateTime={source.lastSyncedAt} title={fullTime(source.lastSyncedAt)}>
            {shortTime(source.lastSyncedAt)}
          </time>
        ) : (
          "Not yet"
        )}
      </Table.Td>
      <Table.Td>
        {web ? (
          <Switch
            aria-label={`Daily re-sync ${source.name}`}
            checked={update.isPending ? update.variables.dailyResync : source.dailyResync}
            disabled={!editable || update.isPending}
            onChange={(e) => update.mutate({ source, dailyResync: e.currentTarget.checked })}
          />
        ) : (
          <Text size="xs" c="dimmed">
            Not for files
          </Text>
        )}
      </Table.Td>
      {editable && (
        <Table.Td>
          <Group gap={4} wrap="nowrap" justify="flex-end">
            <Button
              size="compact-sm"
              variant="default"
              aria-label={`Re-sync ${source.name}`}
              loading={resync.isPending}
              disabled={source.status === "processing"}
              onClick={() => resync.mutate(source)}
            >
              Re-sync
            </Button>
            <Button
              size="compact-sm"
              variant="subtle"
              color="red.9"
              aria-label={`Delete ${source.name}`}
              onClick={() => setConfirming(true)}
            >
              Delete
            </Button>
          </Group>
          {confirming && <DeleteSourceDialog source={source} onClose={() => setConfirming(false)} />}
        </Table.Td>
      )}
    </>
  );
}

function DeleteSourceDialog({ source, onClose }: { source: Source; onClose: () => void }) {
  const remove = useDeleteSource(source.campaignId);
  return (
    <ConfirmModal
      onClose={onClose}
      title={`Delete ${source.name}?`}
      confirmLabel="Delete"
      action={remove}
      onConfirm={() => remove.mutate(source, { onSuccess: onClose })}
    >
      The bot stops answering from its {source.passages} {source.passages === 1 ? "passage" : "passages"} at
      once. This cannot be undone{source.url ? ", but the address can be added again" : ""}.
    </ConfirmModal>
  );
}
