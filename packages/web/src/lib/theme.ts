import {
  type CSSVariablesResolver,
  createTheme,
  darken,
  defaultVariantColorsResolver,
  parseThemeColor,
  TextInput,
  type VariantColorsResolver,
} from "@mantine/core";

// Mantine's default shades put several colours under the WCAG AA contrast ratio (4.5:1) for small
// text: white on blue-6, orange or green, and coloured text on the pale "light" backgrounds. These
// darker choices keep every label readable (the end-to-end suite runs axe on every page).
const variantColorResolver: VariantColorsResolver = (input) => {
  const base = defaultVariantColorsResolver(input);
  const parsed = parseThemeColor({ color: input.color || input.theme.primaryColor, theme: input.theme });
  const shades = parsed.isThemeColor ? input.theme.colors[parsed.color] : undefined;
  if (!shades) return base;
  const ink = darken(shades[9], 0.25);
  switch (input.variant) {
    case "light":
      return { ...base, color: ink, hoverColor: ink, background: shades[0], hover: shades[1] };
    case "subtle":
      return { ...base, color: ink, hoverColor: ink };
    case "outline":
      return { ...base, color: ink, hoverColor: ink, border: `1px solid ${shades[7]}` };
    case "filled": {
      const background = parsed.shade === undefined ? shades[9] : base.background;
      return { ...base, background, hover: darken(background, 0.1), color: "#fff" };
    }
    default:
      return base;
  }
};

export const theme = createTheme({
  primaryColor: "blue",
  primaryShade: { light: 8, dark: 8 },
  defaultRadius: "md",
  variantColorResolver,
  components: {
    // A read-only field (the address on an invite or a password reset) reads as plain text on a
    // pale grey: full-contrast ink, and clearly not something to type into.
    TextInput: TextInput.extend({
      styles: (_theme, props) =>
        props.readOnly
          ? { input: { color: "var(--mantine-color-text)", backgroundColor: "var(--mantine-color-gray-1)" } }
          : {},
    }),
  },
});

export const cssVariables: CSSVariablesResolver = () => ({
  variables: {},
  // Secondary ("dimmed") text: gray-7 instead of gray-6; field errors: red-9 instead of red-6.
  light: {
    "--mantine-color-dimmed": "var(--mantine-color-gray-7)",
    "--mantine-color-error": "var(--mantine-color-red-9)",
  },
  dark: {},
});
