// The shape every built-in channel type has (DESIGN.md section 9): it validates and splits its config,
// and sends one outbound message. Adapters never touch other modules' tables.
import type { AppContext } from "../../../context.ts";
import type { ChannelRow, ChannelType, ConversationRow, MessageRow } from "../../../platform/db/schema.ts";

export type { ChannelType };

/** A channel with its config parsed and its secrets decrypted (never sent to a client as is). */
export type DecryptedChannel = Omit<ChannelRow, "config" | "secrets"> & {
  config: Record<string, unknown>;
  secrets: Record<string, unknown>;
};

export type SendOutcome =
  | { ok: true; providerMessageId?: string }
  | { ok: false; retryable: boolean; errorClass: string; message: string; statusCode?: number };

export interface ChannelAdapter {
  type: ChannelType;
  /** False while the type's provider side is not built (it can be parsed, not created). */
  available: boolean;
  /** The config keys that are secrets: stored encrypted, answered masked. */
  secretKeys: readonly string[];
  /** Validates and splits a create/update body's config into public and secret parts (4xx AppError on bad input). */
  parseConfig(
    input: unknown,
    previous?: { config: Record<string, unknown>; secrets: Record<string, unknown> },
  ): { config: Record<string, unknown>; secrets: Record<string, unknown> };
  /** Sends one outbound message; throws/returns an outcome like webhook delivery does. */
  send(
    ctx: AppContext,
    channel: DecryptedChannel,
    message: MessageRow,
    conversation: ConversationRow,
  ): Promise<SendOutcome>;
}
