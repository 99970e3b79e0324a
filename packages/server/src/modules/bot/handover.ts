// Asking for a person, in the customer's own words ("can I talk to someone?", "human please"). Checked
// before either engine answers: it is cheap, and a customer who asks for a person should get one even
// when the knowledge happens to match a word of the request. The LLM engine also recognises phrasings
// these patterns miss (PERSON_TOKEN in engine-llm.ts).

const WHO =
  "(?:a |an |the |some |your |one of your |to )?(?:human|person|people|agent|someone|somebody|some one|representative|rep|operator|staff|team member|member of staff|manager|real person|live agent|live person|customer service|support)";

const PATTERNS: RegExp[] = [
  // "can I talk to someone", "I want to speak with an agent", "let me chat with a human"
  new RegExp(`\\b(?:talk|speak|chat|get through)\\s+(?:to|with)\\s+${WHO}\\b`, "i"),
  // "connect me with a representative", "transfer me to an agent", "put me through to someone"
  new RegExp(
    `\\b(?:connect|transfer|put|pass|hand)\\s+me\\s+(?:on\\s+)?(?:to|with|through to|over to)\\s+${WHO}\\b`,
    "i",
  ),
  // "get me a human", "can I get a real person", "I need an agent", "I'd like a person"
  /\b(?:get|give|need|want|like|have|see)\s+(?:me\s+)?(?:a |an |to a |to an )?(?:real |actual |live )?(?:human|person|agent|representative|operator)\b/i,
  // "a real person", "an actual human", "live agent"
  /\b(?:real|actual|live)\s+(?:human|person|agent|representative)\b/i,
  // "human please", "please, a person", "agent pls"
  /\b(?:human|person|agent|representative|operator)\b[\s,!.]*\b(?:please|pls|plz|now)\b/i,
  /\bplease\b[\s,!.]*(?:a |an )?\b(?:human|person|agent|representative|operator)\b/i,
  // A message that is only the word: "agent", "Human?", "operator!!"
  /^\s*(?:human|agent|operator|representative|a person|person)\s*[.!?]*\s*$/i,
  // "is there anyone I can talk to", "can someone call me"
  /\bis there (?:anyone|a person|someone|a human)\b/i,
];

export function asksForPerson(text: string): boolean {
  if (text.length > 500) return false;
  return PATTERNS.some((p) => p.test(text));
}

/** What the bot says as it hands over; the conversation then waits for a person. */
export const HANDOVER_MESSAGE = "I'm passing you to a person from our team. They will answer here shortly.";
/** What the bot says when a function it needed failed. */
export const FUNCTION_FAILURE_MESSAGE =
  "Sorry, I couldn't check that just now. A person from our team will get back to you here.";
