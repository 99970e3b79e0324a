// The app's icons: line drawings on a 24×24 grid in the text's colour. Decorative (hidden from screen
// readers) unless they carry a label, which is then their accessible name and tooltip.
import type { ReactNode } from "react";

export function LineIcon({
  size = 16,
  label,
  children,
}: {
  size?: number;
  label?: string;
  children: ReactNode;
}) {
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
      focusable="false"
      style={{ flexShrink: 0 }}
      role="img"
      aria-label={label}
      aria-hidden={label ? undefined : true}
    >
      {label && <title>{label}</title>}
      {children}
    </svg>
  );
}
