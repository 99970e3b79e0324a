// Small readers for a channel type's config object: each throws INVALID_CHANNEL_CONFIG naming the field.
import { AppError } from "../../../platform/errors.ts";

export function invalid(message: string): AppError {
  return new AppError("INVALID_CHANNEL_CONFIG", message);
}

/** The config as a plain object with only `allowed` keys (an unknown key is a mistake worth naming). */
export function configObject(input: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (input === undefined || input === null) return {};
  if (typeof input !== "object" || Array.isArray(input)) throw invalid("config must be an object");
  const obj = input as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) throw invalid(`config.${key} is not a setting of this channel type`);
  }
  return obj;
}

export function text(
  obj: Record<string, unknown>,
  key: string,
  opts: { max: number; fallback?: string; required?: boolean },
): string | undefined {
  const v = obj[key];
  if (v === undefined || v === null) {
    if (opts.required) throw invalid(`config.${key} is required`);
    return opts.fallback;
  }
  if (typeof v !== "string") throw invalid(`config.${key} must be a string`);
  const trimmed = v.trim();
  if (opts.required && trimmed === "") throw invalid(`config.${key} must not be empty`);
  if (trimmed.length > opts.max) throw invalid(`config.${key} must be at most ${opts.max} characters`);
  // Control characters (other than newlines and tabs) have no place in settings shown to visitors.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: that is the point
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(trimmed)) {
    throw invalid(`config.${key} contains control characters`);
  }
  return trimmed;
}

export function flag(obj: Record<string, unknown>, key: string, fallback: boolean): boolean {
  const v = obj[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== "boolean") throw invalid(`config.${key} must be true or false`);
  return v;
}

export function oneOf<T extends string>(
  obj: Record<string, unknown>,
  key: string,
  values: readonly T[],
  fallback: T,
): T {
  const v = obj[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== "string" || !values.includes(v as T)) {
    throw invalid(`config.${key} must be one of ${values.join(", ")}`);
  }
  return v as T;
}
