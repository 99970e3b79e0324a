import {
  Anchor,
  Button,
  FileInput,
  Group,
  Modal,
  Progress,
  SegmentedControl,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
} from "@mantine/core";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorAlert } from "../../components/States.tsx";
import { contactKeys } from "../../lib/queries/contacts.ts";
import { useImportProgress, usePreviewImport, useStartImport } from "../../lib/queries/imports.ts";
import { ListSelect } from "../lists/ListSelect.tsx";

const FIELDS = [
  { value: "", label: "Skip this column" },
  { value: "firstName", label: "First name" },
  { value: "lastName", label: "Last name" },
  { value: "phone", label: "Phone" },
  { value: "email", label: "Email" },
  { value: "externalId", label: "Custom channel id" },
  { value: "labels", label: "Labels (split on , ; or |)" },
];

/** The query of POST /imports: the mapped columns ("column=field,…"), the list, the mode, the country. */
export function importQuery(options: {
  fileName: string | undefined;
  mapping: Record<string, string>;
  listId: string | null;
  mode: "fill" | "overwrite";
  country: string;
}): URLSearchParams {
  const map = Object.entries(options.mapping)
    .filter(([, field]) => field)
    .map(([column, field]) => `${column}=${field}`)
    .join(",");
  const query = new URLSearchParams({ fileName: options.fileName ?? "contacts.csv" });
  if (map) query.set("map", map);
  if (options.listId) query.set("listId", options.listId);
  query.set("mode", options.mode);
  if (options.country.trim()) query.set("defaultCountry", options.country.trim().toUpperCase());
  return query;
}

/** Contacts -> Import contacts: a file, its first rows with a column mapping, then live progress. */
export function ImportDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const client = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [mapping, setMapping] = useState<Record<string, string>>({});
  const [listId, setListId] = useState<string | null>(null);
  const [mode, setMode] = useState<"fill" | "overwrite">("fill");
  const [country, setCountry] = useState("");
  const [importId, setImportId] = useState<string | null>(null);
  const preview = usePreviewImport();
  const start = useStartImport();
  const progress = useImportProgress(importId);
  const imp = progress.data;
  const finished = imp && imp.status !== "running";
  if (finished) void client.invalidateQueries({ queryKey: contactKeys.all });

  const reset = () => {
    setFile(null);
    setMapping({});
    setListId(null);
    setMode("fill");
    setCountry("");
    setImportId(null);
    preview.reset();
    start.reset();
  };
  const close = () => {
    if (!imp || finished) reset();
    onClose();
  };
  const unmapped =
    Object.values(mapping).filter((f) => f === "phone" || f === "email" || f === "externalId").length === 0;

  return (
    <Modal
      opened={opened}
      onClose={close}
      title="Import contacts"
      size="xl"
      closeButtonProps={{ "aria-label": "Close" }}
    >
      <Stack gap="sm">
        {!importId && (
          <>
            <FileInput
              label="CSV file"
              description="UTF-8, with a header row naming the columns; up to 50 MB"
              accept=".csv,text/csv"
              value={file}
              onChange={(f) => {
                setFile(f);
                preview.reset();
                if (f) preview.mutate(f, { onSuccess: (p) => setMapping(p.mapping) });
              }}
              clearable
              clearButtonProps={{ "aria-label": "Remove the file" }}
            />
            <ErrorAlert error={preview.error} title="This file cannot be imported" />
            {preview.data && (
              <>
                <Text size="sm">
                  {preview.data.total} {preview.data.total === 1 ? "row" : "rows"}. Check what each column
                  holds:
                </Text>
                <Table.ScrollContainer minWidth={500}>
                  <Table withTableBorder aria-label="Column mapping and first rows">
                    <Table.Thead>
                      <Table.Tr>
                        {preview.data.header.map((column) => (
                          <Table.Th key={column}>
                            <Select
                              label={column}
                              data={FIELDS}
                              value={mapping[column] ?? ""}
                              onChange={(v) => setMapping((m) => ({ ...m, [column]: v ?? "" }))}
                              allowDeselect={false}
                              size="xs"
                            />
                          </Table.Th>
                        ))}
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {preview.data.sample.map((row, i) => (
                        // biome-ignore lint/suspicious/noArrayIndexKey: the preview's rows never move
                        <Table.Tr key={i}>
                          {preview.data.header.map((column, j) => (
                            <Table.Td key={column}>{row[j] ?? ""}</Table.Td>
                          ))}
                        </Table.Tr>
                      ))}
                    </Table.Tbody>
                  </Table>
                </Table.ScrollContainer>
                <ListSelect
                  label="Add the contacts to a list"
                  placeholder="No list"
                  value={listId}
                  onChange={setListId}
                  clearable
                  clearButtonProps={{ "aria-label": "No list" }}
                  w={300}
                />
                <Stack gap={4}>
                  <Text size="sm" fw={500} id="import-mode-label">
                    Contacts that already exist
                  </Text>
                  <SegmentedControl
                    aria-labelledby="import-mode-label"
                    value={mode}
                    onChange={(v) => setMode(v as "fill" | "overwrite")}
                    data={[
                      { value: "fill", label: "Fill empty fields only" },
                      { value: "overwrite", label: "Overwrite with the file's values" },
                    ]}
                    w="fit-content"
                  />
                  <Text size="xs" c="dimmed">
                    {mode === "fill"
                      ? "A name or e-mail a contact already has is kept; labels are added."
                      : "Names and e-mails are replaced by the file's; labels are added."}
                  </Text>
                </Stack>
                <TextInput
                  label="Country of numbers without a country code"
                  description="Two letters, e.g. CA: (416) 555-0123 becomes +1 416 555 0123. Empty: such rows are rejected."
                  placeholder="e.g. CA"
                  value={country}
                  onChange={(e) => setCountry(e.currentTarget.value.slice(0, 2))}
                  maxLength={2}
                  w={300}
                />
                {unmapped && (
                  <Text size="sm" c="red.9" role="alert">
                    Map a column to Phone, Email or Custom channel id: each contact needs one.
                  </Text>
                )}
                <ErrorAlert error={start.error} />
                <Group justify="flex-end">
                  <Button
                    loading={start.isPending}
                    disabled={unmapped}
                    onClick={() =>
                      start.mutate(
                        {
                          file: file as File,
                          query: importQuery({ fileName: file?.name, mapping, listId, mode, country }),
                        },
                        { onSuccess: (started) => setImportId(started.importId) },
                      )
                    }
                  >
                    Start import
                  </Button>
                </Group>
              </>
            )}
          </>
        )}
        {importId && (
          <Stack gap="xs" aria-live="polite">
            <Text size="sm" fw={600}>
              {imp
                ? imp.status === "running"
                  ? `Importing: ${imp.done} of ${imp.total} rows`
                  : imp.status === "done"
                    ? `Import finished: ${imp.done} of ${imp.total} rows`
                    : `Import failed: ${imp.error}`
                : "Starting…"}
            </Text>
            <Progress
              value={imp && imp.total > 0 ? (imp.done / imp.total) * 100 : imp?.status === "done" ? 100 : 0}
              aria-label="Import progress"
              animated={imp?.status === "running"}
            />
            {imp && (
              <Text size="sm">
                Created {imp.created}, updated {imp.updated}, unchanged {imp.unchanged}, rejected{" "}
                {imp.rejected}
              </Text>
            )}
            {finished && imp.rejected > 0 && (
              <Anchor href={`/app/api/imports/${imp.importId}/rejected`} download>
                Download the rejected rows, with the reason for each
              </Anchor>
            )}
            {finished && (
              <Group justify="flex-end">
                <Button
                  variant="default"
                  onClick={() => {
                    reset();
                    onClose();
                  }}
                >
                  Done
                </Button>
              </Group>
            )}
          </Stack>
        )}
      </Stack>
    </Modal>
  );
}
