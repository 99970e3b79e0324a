import { Text } from "@mantine/core";
import type { Brand } from "../lib/brand.ts";

/**
 * The product's mark in the header and on the signed-out pages: an agency's logo and name for its
 * sub-accounts (and on its own address), Parley's otherwise. The logo is decorative (alt ""): the name
 * next to it says the same.
 */
export function BrandMark({ brand, size }: { brand: Brand | null | undefined; size: number }) {
  if (!brand) return <img src="/favicon.svg" alt="" width={size} height={size} />;
  return brand.logoUrl ? (
    <img
      src={brand.logoUrl}
      alt=""
      height={size}
      style={{ maxWidth: size * 4, objectFit: "contain" }}
      data-testid="brand-logo"
    />
  ) : null;
}

/** The product's name: the agency's brand name, or Parley. */
export function BrandName({ brand }: { brand: Brand | null | undefined }) {
  return (
    <Text fw={700} size="lg" truncate maw={260}>
      {brand?.name ?? "Parley"}
    </Text>
  );
}
