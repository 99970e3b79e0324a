// A choice among the account's lists (every list, up to 200), read when the choice is shown.
import { Select, type SelectProps } from "@mantine/core";
import { useListChoices } from "../../lib/queries/lists.ts";

export function ListSelect(props: Omit<SelectProps, "data">) {
  const lists = useListChoices();
  return <Select data={(lists.data?.data ?? []).map((l) => ({ value: l.id, label: l.name }))} {...props} />;
}
