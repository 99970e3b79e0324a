// Phone numbers: parsed by libphonenumber-js, must carry a country code, stored as E.164.
import { parsePhoneNumberFromString } from "libphonenumber-js";

/** E.164 form of `raw`, or null when it is not a valid number with a country code. */
export function toE164(raw: string): string | null {
  const trimmed = raw.trim();
  // Without a default country a number must start with "+" (or 00, rewritten here) to parse.
  const candidate = trimmed.startsWith("00") ? `+${trimmed.slice(2)}` : trimmed;
  if (!candidate.startsWith("+")) return null;
  const parsed = parsePhoneNumberFromString(candidate);
  return parsed?.isValid() ? parsed.number : null;
}
