// Credit amounts: clients and operators speak whole credits with at most two decimals; storage uses
// integer hundredths so sums never drift.
import { AppError } from "./errors.ts";

/** The largest amount one grant, recharge setting or adjustment may carry (whole credits). */
export const MAX_AMOUNT = 1_000_000;

/** A client's credit amount (a JSON number) → integer hundredths, or 400 INVALID_AMOUNT. */
export function parseAmount(value: unknown, field = "amount"): number {
  if (value === undefined || value === null) throw new AppError("INVALID_AMOUNT", `${field} is required`);
  if (typeof value !== "number") {
    const got = Array.isArray(value) ? "array" : typeof value;
    throw new AppError("INVALID_AMOUNT", `${field} must be a JSON number (got ${got})`);
  }
  if (!Number.isFinite(value)) throw new AppError("INVALID_AMOUNT", `${field} must be a finite number`);
  if (value <= 0) throw new AppError("INVALID_AMOUNT", `${field} must be greater than 0`);
  if (value > MAX_AMOUNT) throw new AppError("INVALID_AMOUNT", `${field} must be at most ${MAX_AMOUNT}`);
  const hundredths = Math.round(value * 100);
  // Exact for every decimal with two places: k / 100 is the double that "k/100" parses to.
  if (hundredths / 100 !== value) {
    throw new AppError("INVALID_AMOUNT", `${field} must have at most two decimals`);
  }
  return hundredths;
}

/** Whole credits (zero allowed) → hundredths, for operator input such as initial credits. */
export function toHundredths(amount: number): number {
  if (!Number.isFinite(amount)) throw new AppError("INVALID_AMOUNT", "amount must be a finite number");
  const h = Math.round(amount * 100);
  if (Math.abs(h - amount * 100) > 1e-6)
    throw new AppError("INVALID_AMOUNT", "amount has more than two decimals");
  return h;
}

export function fromHundredths(h: number): number {
  return h / 100;
}
