// "Attach a file" in the reply box: one image or PDF goes with a person's reply, through the same
// delivery as the text. The types and the size cap are the server's (messaging/media/reply-attachment.ts):
// a file past them is refused here, before anything is sent.
import { Button, FileButton, Group, Text } from "@mantine/core";
import { useRef, useState } from "react";
import { sizeLabel } from "../../lib/files.ts";

export const ATTACHMENT_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf"];
/** 16 MiB, the server's cap for every stored attachment. */
export const MAX_ATTACHMENT_BYTES = 16 * 1024 * 1024;

/** Why a file cannot be attached, or null when it can. */
export function attachmentProblem(file: File): string | null {
  if (!ATTACHMENT_TYPES.includes(file.type)) {
    return `${file.name} cannot be attached: only images (PNG, JPEG, GIF, WebP) and PDFs can be sent.`;
  }
  if (file.size > MAX_ATTACHMENT_BYTES) {
    return `${file.name} is ${sizeLabel(file.size)}; attachments can be at most ${sizeLabel(MAX_ATTACHMENT_BYTES)}.`;
  }
  if (file.size === 0) return `${file.name} is empty.`;
  return null;
}

export function AttachmentPicker({
  file,
  onChange,
  disabled,
}: {
  file: File | null;
  onChange: (file: File | null) => void;
  disabled?: boolean;
}) {
  const [problem, setProblem] = useState<string | null>(null);
  // The hidden input is emptied after each pick, so the same file can be chosen again after a removal.
  const reset = useRef<() => void>(null);
  const choose = (picked: File | null) => {
    reset.current?.();
    if (!picked) return;
    const why = attachmentProblem(picked);
    setProblem(why);
    onChange(why ? null : picked);
  };
  return (
    <Group gap="xs" wrap="wrap">
      {file ? (
        <>
          <Text size="sm" data-testid="chosen-attachment" style={{ overflowWrap: "anywhere" }}>
            Attached: {file.name} ({sizeLabel(file.size)})
          </Text>
          <Button
            size="compact-sm"
            variant="subtle"
            color="red.9"
            disabled={disabled}
            onClick={() => {
              setProblem(null);
              onChange(null);
            }}
          >
            Remove attachment
          </Button>
        </>
      ) : (
        <FileButton
          resetRef={reset}
          onChange={choose}
          accept={ATTACHMENT_TYPES.join(",")}
          disabled={disabled}
        >
          {(props) => (
            <Button {...props} size="compact-sm" variant="default">
              Attach a file
            </Button>
          )}
        </FileButton>
      )}
      {!file && (
        <Text size="xs" c="dimmed">
          Image or PDF, up to {sizeLabel(MAX_ATTACHMENT_BYTES)}
        </Text>
      )}
      {problem && (
        <Text size="xs" c="red.9" role="alert">
          {problem}
        </Text>
      )}
    </Group>
  );
}
