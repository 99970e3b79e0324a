// A list without bullets or indent (its items are <li>): one under the other, or side by side when
// `inline`. Screen readers still announce it as a list of so many items.
import { Group, type MantineSpacing, Stack, type StyleProp } from "@mantine/core";
import type { ReactNode } from "react";

export function PlainList(props: {
  "aria-label": string;
  gap?: MantineSpacing;
  /** Numbered for assistive technology (an <ol>): the order means something, as in a thread. */
  ordered?: boolean;
  inline?: boolean;
  /** Room above and below the items. */
  py?: StyleProp<MantineSpacing>;
  children: ReactNode;
}) {
  const { inline, ordered, children, ...box } = props;
  const List = inline ? Group : Stack;
  return (
    <List component={ordered ? "ol" : "ul"} m={0} p={0} style={{ listStyle: "none" }} {...box}>
      {children}
    </List>
  );
}
