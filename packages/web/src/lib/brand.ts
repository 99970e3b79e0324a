// An agency's brand (issue 38): a sub-account's people see their agency's name, logo and colour
// instead of Parley's, and so does the sign-in page reached through the agency's own address. The
// colour becomes Mantine's primary palette, darkened where needed so white text and links on white
// keep the 4.5:1 contrast axe checks.
import { lighten, type MantineColorsTuple, type MantineThemeOverride } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { api } from "./api.ts";
import type { ApiResponse, Session } from "./api-types.ts";
import { useSession } from "./session.ts";

export type Brand = NonNullable<Session["brand"]>;

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

const onWhite = (hex: string) => 1.05 / (luminance(hex) + 0.05);

function toHex(n: number): string {
  return Math.round(Math.max(0, Math.min(255, n)))
    .toString(16)
    .padStart(2, "0");
}

/** The colour scaled towards black by `amount` (0..1), as #rrggbb. */
function shade(hex: string, amount: number): string {
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16) * (1 - amount));
  return `#${toHex(r!)}${toHex(g!)}${toHex(b!)}`;
}

/** The brand colour itself when white reads on it (4.6:1), else the nearest darker one that does. */
export function readableOnWhite(color: string): string {
  let amount = 0;
  while (onWhite(shade(color, amount)) < 4.6 && amount < 1) amount += 0.02;
  return shade(color, amount);
}

/** Mantine's ten shades from one colour: pale tints for backgrounds, the readable colour for the rest. */
export function brandPalette(color: string): MantineColorsTuple {
  const strong = readableOnWhite(color);
  const tints = [0.92, 0.85, 0.72, 0.58, 0.4, 0.2].map((a) => lighten(strong, a));
  return [...tints, strong, strong, strong, strong] as unknown as MantineColorsTuple;
}

/** The app's theme with the brand's colour as the primary one (the base theme without a brand). */
export function brandedTheme(base: MantineThemeOverride, color: string | undefined): MantineThemeOverride {
  if (!color) return base;
  return { ...base, colors: { ...base.colors, brand: brandPalette(color) }, primaryColor: "brand" };
}

/** The brand of the agency whose own address this page came through (for the signed-out pages). */
export function useSignInBrand(enabled: boolean) {
  return useQuery({
    queryKey: ["brand", "sign-in"],
    queryFn: () => api<ApiResponse<"appGetSignInBrand">>("GET", "/brand/sign-in"),
    enabled,
    staleTime: 300_000,
  });
}

/** The brand this page shows: the signed-in sub-account's agency's, or the sign-in address's. */
export function usePageBrand(): Brand | null {
  const session = useSession();
  const signedOut = session.isSuccess && session.data === null;
  const signIn = useSignInBrand(signedOut);
  if (session.data) return session.data.brand ?? null;
  return signedOut ? (signIn.data?.brand ?? null) : null;
}
