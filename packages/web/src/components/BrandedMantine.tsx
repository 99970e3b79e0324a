import { MantineProvider } from "@mantine/core";
import { type ReactNode, useEffect, useMemo } from "react";
import { brandedTheme, usePageBrand } from "../lib/brand.ts";
import { cssVariables, theme } from "../lib/theme.ts";
import { setProductName } from "../lib/useDocumentTitle.ts";

/** Mantine with the page's brand colour as the primary one (Parley's own without a brand). */
export function BrandedMantine({ children }: { children: ReactNode }) {
  const brand = usePageBrand();
  const color = brand?.color;
  const themed = useMemo(() => brandedTheme(theme, color), [color]);
  const name = brand?.name ?? "Parley";
  useEffect(() => setProductName(name), [name]);
  return (
    <MantineProvider theme={themed} cssVariablesResolver={cssVariables} defaultColorScheme="light">
      {children}
    </MantineProvider>
  );
}
