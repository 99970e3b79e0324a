// Agency branding (issue 38): an agency sets a name, a colour and a logo; its sub-accounts' app, their
// chat widgets and the sign-in page on the agency's own address show them instead of Parley's. The
// logo is a file in the object storage (brands/<random>): written before the row that names it
// commits, the one it replaced deleted after. A logo is PNG, JPEG or WebP only (told from its bytes):
// never SVG, which can carry script.
import { randomBytes } from "node:crypto";
import { fileTypeFromBuffer } from "file-type";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../platform/db/index.ts";
import { isUniqueViolation } from "../../platform/db/index.ts";
import type { AccountRow } from "../../platform/db/schema.ts";
import { AppError } from "../../platform/errors.ts";
import type { StoredObject } from "../../platform/storage.ts";
import { findAccountById } from "../accounts/repo.ts";
import * as repo from "./repo.ts";
import { BRAND_NAME_MAX, LOGO_MAX_BYTES } from "./schemas.ts";

export const LOGO_PREFIX = "brands/";
/** The key of a logo Parley wrote: the prefix and 18 random bytes in base64url (see saveLogo). */
export const isLogoKey = (key: string) => /^brands\/[A-Za-z0-9_-]{24}$/.test(key);
const LOGO_TYPES = new Set(["image/png", "image/jpeg", "image/webp"]);
const COLOR = /^#[0-9a-f]{6}$/;
const LIGHT_TEXT = "#ffffff";
const DARK_TEXT = "#111827";

/** The path the logo is served at (open: the sign-in page and other sites' widgets show it). */
export const logoPath = (key: string) => `/app/api/brand-logos/${key.slice(LOGO_PREFIX.length)}`;

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** White or near-black, whichever contrasts more with the brand colour. */
export function textColorOn(color: string): string {
  return contrast(color, LIGHT_TEXT) >= contrast(color, DARK_TEXT) ? LIGHT_TEXT : DARK_TEXT;
}

export function publicBrandView(row: repo.BrandRow) {
  return {
    name: row.name,
    color: row.color,
    textColor: textColorOn(row.color),
    logoUrl: row.logo_key ? logoPath(row.logo_key) : null,
  };
}

export function agencyBrandView(row: repo.BrandRow) {
  return { ...publicBrandView(row), publicUrl: row.public_host ? `https://${row.public_host}` : null };
}

export type PublicBrand = ReturnType<typeof publicBrandView>;

export function requireAgencyAccount(account: AccountRow): void {
  if (account.kind !== "agency") {
    throw new AppError("NOT_AGENCY", "Only agency accounts have a brand");
  }
}

/** The agency's own brand, or null. */
export async function getBrand(db: Db, agencyId: string) {
  const row = await repo.findBrand(db.kysely, agencyId);
  return row ? agencyBrandView(row) : null;
}

/** The brand an account's people and visitors see: its agency's, for a sub-account; else none. */
export async function brandFor(db: Db, account: Pick<AccountRow, "kind" | "parent_account_id">) {
  if (account.kind !== "subaccount" || !account.parent_account_id) return null;
  const row = await repo.findBrand(db.kysely, account.parent_account_id);
  return row ? publicBrandView(row) : null;
}

/** The same by the account's id (the widget knows only its channel's account). */
export async function brandForAccount(db: Db, accountId: string) {
  const account = await findAccountById(db.kysely, accountId);
  return account ? brandFor(db, account) : null;
}

/** "https://chat.agency.example/" → "chat.agency.example" (the port kept unless it is the default). */
export function hostOfPublicUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new AppError("VALIDATION_ERROR", "publicUrl must be an address like https://chat.example.com");
  }
  if ((url.protocol !== "https:" && url.protocol !== "http:") || !url.hostname) {
    throw new AppError("VALIDATION_ERROR", "publicUrl must be an address like https://chat.example.com");
  }
  if (url.pathname !== "/" || url.search || url.hash || url.username || url.password) {
    throw new AppError("VALIDATION_ERROR", "publicUrl must be an address only, without a path");
  }
  return url.host.toLowerCase();
}

export interface BrandInput {
  name: string;
  color: string;
  publicUrl?: string | null;
}

export async function setBrand(db: Db, agencyId: string, input: BrandInput) {
  const name = input.name.trim();
  if (!name) throw new AppError("VALIDATION_ERROR", "name must not be empty");
  if (name.length > BRAND_NAME_MAX) {
    throw new AppError("VALIDATION_ERROR", `name must be at most ${BRAND_NAME_MAX} characters`);
  }
  const color = input.color.trim().toLowerCase();
  if (!COLOR.test(color)) throw new AppError("VALIDATION_ERROR", "color must be #rrggbb, e.g. #7c3aed");
  const existing = await repo.findBrand(db.kysely, agencyId);
  const publicHost =
    input.publicUrl === undefined
      ? (existing?.public_host ?? null)
      : input.publicUrl === null || input.publicUrl.trim() === ""
        ? null
        : hostOfPublicUrl(input.publicUrl);
  try {
    await db.write((trx) =>
      repo.saveBrand(trx, agencyId, {
        name,
        color,
        logo_key: existing?.logo_key ?? null,
        logo_type: existing?.logo_type ?? null,
        public_host: publicHost,
        updated_at: Date.now(),
      }),
    );
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new AppError("VALIDATION_ERROR", "publicUrl is already another agency's address");
    }
    throw err;
  }
  return (await getBrand(db, agencyId))!;
}

async function requireBrandRow(db: Db, agencyId: string): Promise<repo.BrandRow> {
  const row = await repo.findBrand(db.kysely, agencyId);
  if (!row) throw new AppError("NOT_FOUND", "No brand yet: save its name and colour first");
  return row;
}

/** Stores a new logo (replacing the old one, whose file goes after the commit). */
export async function setLogo(ctx: AppContext, agencyId: string, base64: string) {
  await requireBrandRow(ctx.db, agencyId);
  const bytes = Buffer.from(base64, "base64");
  if (bytes.length === 0) throw new AppError("VALIDATION_ERROR", "data must be a base64 image");
  if (bytes.length > LOGO_MAX_BYTES) {
    throw new AppError("PAYLOAD_TOO_LARGE", `The logo may be at most ${LOGO_MAX_BYTES / 1024} kB`);
  }
  const type = (await fileTypeFromBuffer(bytes))?.mime;
  if (!type || !LOGO_TYPES.has(type)) {
    throw new AppError("INVALID_MEDIA", "The logo must be a PNG, JPEG or WebP image");
  }
  const key = `${LOGO_PREFIX}${randomBytes(18).toString("base64url")}`;
  await ctx.storage.put(key, bytes, type);
  const old = await ctx.db.write(async (trx) => {
    const row = await repo.findBrand(trx, agencyId);
    if (!row) return null;
    await repo.saveBrand(trx, agencyId, { ...row, logo_key: key, logo_type: type, updated_at: Date.now() });
    return row;
  });
  if (!old) {
    await ctx.storage.delete(key);
    throw new AppError("NOT_FOUND", "No brand yet: save its name and colour first");
  }
  if (old.logo_key) await ctx.storage.delete(old.logo_key);
  return (await getBrand(ctx.db, agencyId))!;
}

export async function removeLogo(ctx: AppContext, agencyId: string) {
  const row = await requireBrandRow(ctx.db, agencyId);
  if (row.logo_key) {
    await ctx.db.write((trx) =>
      repo.saveBrand(trx, agencyId, { ...row, logo_key: null, logo_type: null, updated_at: Date.now() }),
    );
    await ctx.storage.delete(row.logo_key);
  }
  return (await getBrand(ctx.db, agencyId))!;
}

export async function removeBrand(ctx: AppContext, agencyId: string): Promise<void> {
  const row = await repo.findBrand(ctx.db.kysely, agencyId);
  if (!row) return;
  await ctx.db.write((trx) => repo.deleteBrand(trx, agencyId));
  if (row.logo_key) await ctx.storage.delete(row.logo_key);
}

/** The brand of the agency whose own address `host` is (the sign-in page), or null. */
export async function brandForHost(db: Db, host: string | undefined) {
  if (!host) return null;
  const row = await repo.findBrandByHostPublic(db.kysely, host.trim().toLowerCase());
  return row ? publicBrandView(row) : null;
}

/** A current logo's file and type, or null (an old or unknown id). */
export async function openLogo(
  ctx: AppContext,
  logoId: string,
): Promise<{ file: StoredObject; type: string } | null> {
  const key = `${LOGO_PREFIX}${logoId}`;
  const row = await repo.findBrandByLogoPublic(ctx.db.kysely, key);
  if (!row?.logo_type) return null;
  const file = await ctx.storage.get(key);
  return file ? { file, type: row.logo_type } : null;
}
