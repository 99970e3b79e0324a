// A campaign outside the account's business hours (Settings → Business hours): answer as usual or send
// an away message once per closed period, and whether its follow-ups wait for the opening. Edited as
// part of the campaign (saved with its Save button).
import { Anchor, Group, Paper, Radio, Stack, Switch, Text, Textarea, Title } from "@mantine/core";
import { Link } from "react-router";
import { useBusinessHours } from "../../lib/queries/settings.ts";

export const AWAY_MESSAGE_MAX = 1_000;

export interface HoursDraft {
  outsideHours: "answer" | "away";
  awayMessage: string;
  followUpsInHours: boolean;
}

export function HoursSection({
  draft,
  onChange,
  canReadHours,
  awayError,
}: {
  draft: HoursDraft;
  onChange: (d: HoursDraft) => void;
  /** Owners and admins see whether the account's hours are set (agents cannot read the settings). */
  canReadHours: boolean;
  awayError?: string | null;
}) {
  const hours = useBusinessHours(canReadHours);
  const set = (patch: Partial<HoursDraft>) => onChange({ ...draft, ...patch });
  const notSet = hours.data && hours.data.businessHours === null;
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="hours-heading">
      <Title order={2} size="h4" id="hours-heading" mb={4}>
        Business hours
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        What this campaign does when your team is away. The hours are the account's:{" "}
        <Anchor component={Link} to="/settings" underline="always">
          Settings → Business hours
        </Anchor>
        .{notSet ? " They are not set yet, so the account counts as always open." : ""}
        {hours.data?.businessHours
          ? ` ${hours.data.openNow ? "Open now." : `Closed now; opens ${hours.data.openingTime}.`}`
          : ""}
      </Text>
      <Stack gap="sm">
        <Radio.Group
          label="Outside business hours"
          value={draft.outsideHours}
          onChange={(v) => set({ outsideHours: v as HoursDraft["outsideHours"] })}
        >
          <Group gap="lg" mt={4}>
            <Radio value="answer" label="Answer as usual" />
            <Radio value="away" label="Send an away message" />
          </Group>
        </Radio.Group>
        {draft.outsideHours === "away" && (
          <Textarea
            label="Away message"
            description="Sent once per closed period to a customer who writes while you are closed; the bot does not answer, and a person is alerted for the opening. {{openingTime}} says when you open next (for example Monday 09:00); {{firstName|there}} the customer's first name."
            placeholder="Thanks for your message! We are closed now and back {{openingTime}}."
            autosize
            minRows={2}
            maxLength={AWAY_MESSAGE_MAX}
            value={draft.awayMessage}
            onChange={(e) => set({ awayMessage: e.currentTarget.value })}
            error={awayError}
            required
          />
        )}
        <Switch
          label="Hold follow-ups to business hours"
          description="A follow-up falling due while you are closed waits for the opening"
          checked={draft.followUpsInHours}
          onChange={(e) => set({ followUpsInHours: e.currentTarget.checked })}
        />
      </Stack>
    </Paper>
  );
}
