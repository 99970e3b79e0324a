import { Select } from "@mantine/core";
import { useCampaignChoices } from "../../lib/queries/campaigns.ts";

/** A channel's campaign: whose bot answers its conversations (none: the account's default campaign). */
export function CampaignSelect({
  value,
  onChange,
}: {
  value: string | null;
  onChange: (campaignId: string | null) => void;
}) {
  const campaigns = useCampaignChoices();
  const options = (campaigns.data?.data ?? []).map((c) => ({
    value: c.id,
    label: c.isDefault ? `${c.name} (default)` : c.name,
  }));
  return (
    <Select
      label="Campaign"
      description="Whose bot answers this channel's conversations; none: your default campaign, as for the custom channel."
      placeholder="No campaign"
      data={options}
      value={value}
      onChange={onChange}
      clearable
      clearButtonProps={{ "aria-label": "Clear the campaign" }}
    />
  );
}
