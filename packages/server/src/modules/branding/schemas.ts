// Branding's request and response shapes (TypeBox).
import { Type } from "typebox";

export const BRAND_NAME_MAX = 60;
/** The logo's largest size in bytes. */
export const LOGO_MAX_BYTES = 512 * 1024;

export const BrandJson = Type.Object({
  name: Type.String(),
  /** #rrggbb. */
  color: Type.String(),
  /** #ffffff or #111827: whichever reads better on `color`. */
  textColor: Type.String(),
  /** A path on this server (open, no session), or null without a logo. */
  logoUrl: Type.Union([Type.String(), Type.Null()]),
});

export const AgencyBrandJson = Type.Object({
  ...BrandJson.properties,
  /** The agency's own address (its PUBLIC_URL) whose sign-in page shows the brand, or null. */
  publicUrl: Type.Union([Type.String(), Type.Null()]),
});

export const BrandStateJson = Type.Object({ brand: Type.Union([AgencyBrandJson, Type.Null()]) });
export const PublicBrandJson = Type.Object({ brand: Type.Union([BrandJson, Type.Null()]) });

export const BrandBody = Type.Object({
  // Trimmed and checked by the service (a clear message naming the field).
  name: Type.String({ maxLength: BRAND_NAME_MAX * 2 }),
  color: Type.String({ maxLength: 20 }),
  publicUrl: Type.Optional(Type.Union([Type.String({ maxLength: 300 }), Type.Null()])),
});

export const LogoBody = Type.Object({
  /** The image, base64: PNG, JPEG or WebP (told from the bytes), at most 512 kB. */
  data: Type.String({ minLength: 1, maxLength: Math.ceil((LOGO_MAX_BYTES * 4) / 3) + 8 }),
});

export const LogoParams = Type.Object({ logoId: Type.String({ pattern: "^[A-Za-z0-9_-]{1,64}$" }) });
