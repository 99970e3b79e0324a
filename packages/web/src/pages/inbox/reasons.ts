// The reasons the bot hands a conversation to a person (bot/reply-job.ts AlertReason), in words: the
// conversation's "Needs a human" alert and its summary both say them.
export const ALERT_REASONS: Record<string, string> = {
  no_answer: "The bot had no answer in its knowledge and sent the fallback message.",
  llm_error: "The LLM provider failed, so the bot sent the fallback message.",
  llm_not_configured: "The campaign uses the LLM engine but no LLM provider is set up in Settings.",
  out_of_credits: "The account is out of credits, so the bot did not answer.",
  function_error: "A function failed, so the bot told the customer a person will get back to them.",
  human_requested: "The customer asked for a person, so the bot handed over and paused itself.",
  outside_hours: "The customer wrote outside business hours, so the bot sent the away message.",
};

/** A hand-over reason in words (an unknown code as it is). */
export function reasonText(reason: string | null | undefined): string | null {
  if (!reason) return null;
  return ALERT_REASONS[reason] ?? reason;
}
