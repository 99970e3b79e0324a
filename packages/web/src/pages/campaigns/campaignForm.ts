// The campaign editor's one form (Mantine's form state): the settings, knowledge, functions, follow-ups
// and hours, saved together by "Save campaign". Its sections reach it through the context below instead
// of each taking its drafts and an onChange.
import { createFormContext } from "@mantine/form";
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
