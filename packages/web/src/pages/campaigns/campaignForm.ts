// The campaign editor's one form (Mantine's form state): the settings, knowledge, functions, follow-ups
// and hours, saved together by "Save campaign". Its sections reach it through the context below instead
// of each taking its drafts and an onChange.
import { createFormContext, type FormArrayElement } from "@mantine/form";
import { useRef } from "react";
import type { Campaign, KnowledgeEntry } from "../../lib/api-types.ts";
import type { FollowUpDraft } from "./FollowUpsSection.tsx";
import type { FunctionDraft } from "./FunctionsSection.tsx";
import type { HoursDraft } from "./HoursSection.tsx";

export interface CampaignFormValues
  extends Pick<Campaign, "name" | "status" | "instructions" | "keywords" | "fallbackMessage" | "engine"> {
  /** Empty: the account's model. */
  model: string;
  knowledge: KnowledgeEntry[];
  functions: FunctionDraft[];
  followUps: FollowUpDraft[];
  hours: HoursDraft;
}

export const [CampaignFormProvider, useCampaignFormContext, useCampaignForm] =
  createFormContext<CampaignFormValues>();

type RowList = "functions" | "followUps";

/**
 * One of the form's lists of rows (functions, follow-ups): its rows, add one with a fresh React key
 * (so the other rows' inputs stay in place), remove one.
 */
export function useFormRows<List extends RowList>(list: List) {
  const form = useCampaignFormContext();
  const rows = form.values[list];
  const nextKey = useRef(rows.length);
  return {
    form,
    rows,
    add: (row: Omit<CampaignFormValues[List][number], "key">) =>
      // Generic over the list, TypeScript cannot see that a row of it with its key is an element of it.
      form.insertListItem(list, { ...row, key: nextKey.current++ } as FormArrayElement<
        CampaignFormValues,
        List
      >),
    remove: (i: number) => form.removeListItem(list, i),
  };
}
