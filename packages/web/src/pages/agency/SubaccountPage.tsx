import { Alert, Anchor, Badge, Button, Group, Stack, Table, Text, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useState } from "react";
import { Link, useParams } from "react-router";
import { PagedTable } from "../../components/PagedTable.tsx";
import { PageHeader } from "../../components/PageHeader.tsx";
import { Section } from "../../components/Section.tsx";
import { EmptyState, ErrorAlert, ErrorState, LoadingState } from "../../components/States.tsx";
import { credits, fullTime } from "../../lib/format.ts";
import {
  useCreditTransactions,
  useGrantCredits,
  useSetAutoRecharge,
  useSubaccounts,
} from "../../lib/queries/agency.ts";
import { useSettings } from "../../lib/queries/settings.ts";
import { useDocumentTitle } from "../../lib/useDocumentTitle.ts";
import { NumberField, SubaccountSummary } from "./AgencyPage.tsx";
import { AssistButton } from "./AssistButton.tsx";
import { SubaccountUsage } from "./SubaccountUsage.tsx";

export function SubaccountPage() {
  useDocumentTitle("Sub-account");
  const { subaccountId = "" } = useParams();
  const subs = useSubaccounts();
  const history = useCreditTransactions(subaccountId);
  const [granting, setGranting] = useState(false);
  const grantForm = useForm({ initialValues: { amount: "" as number | string, description: "" } });
  const rule = useForm({
    initialValues: { threshold: "" as number | string, recharge: "" as number | string },
  });
  const { amount, description } = grantForm.values;
  const { threshold, recharge } = rule.values;
  const grant = useGrantCredits(subaccountId);
  const auto = useSetAutoRecharge(subaccountId);
  // Auto-recharge only asks: the event goes to the agency's events URL, so without one nothing tops up.
  const settings = useSettings();
  const noEventsUrl = settings.data !== undefined && !settings.data.eventsWebhookUrl;

  if (subs.isPending) return <LoadingState label="Loading the sub-account" />;
  if (subs.isError) return <ErrorState error={subs.error} onRetry={() => void subs.refetch()} />;
  const sub = subs.data.data.find((s) => s.id === subaccountId);
  if (!sub) return <EmptyState title="This sub-account does not exist" />;

  return (
    <Stack gap="md" maw={900}>
      <PageHeader title={sub.name}>
        <AssistButton sub={sub} size="sm" />
      </PageHeader>
      <SubaccountSummary sub={sub} />
      <Section title="Credits">
        {granting ? (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              grant.mutate(
                { amount: Number(amount), description: description.trim() || null },
                {
                  onSuccess: () => {
                    setGranting(false);
                    grantForm.reset();
                  },
                },
              );
            }}
            noValidate
          >
            <Stack gap="sm">
              <ErrorAlert error={grant.error} />
              <Group align="flex-start" gap="xs">
                <NumberField label="Amount" {...grantForm.getInputProps("amount")} />
                <TextInput
                  label="Description"
                  placeholder="Shown in the history"
                  maxLength={500}
                  {...grantForm.getInputProps("description")}
                  style={{ flex: 1 }}
                />
              </Group>
              <Group gap="xs">
                <Button type="submit" loading={grant.isPending} disabled={amount === ""}>
                  Grant
                </Button>
                <Button variant="default" onClick={() => setGranting(false)}>
                  Cancel
                </Button>
              </Group>
            </Stack>
          </form>
        ) : (
          <Button onClick={() => setGranting(true)}>Grant credits</Button>
        )}
      </Section>
      <Section
        title="Auto-recharge"
        description={
          sub.autoRecharge
            ? `On: below ${credits(sub.autoRecharge.threshold)} credits, your events URL is asked to grant ${credits(sub.autoRecharge.rechargeAmount)}.`
            : "Off. When on, a debit that takes the balance below the threshold sends an event to your account events URL."
        }
      >
        {noEventsUrl && (
          <Alert color="yellow" title="No events URL" role="status" mb="xs">
            Your account has no events URL, so an auto-recharge event reaches nobody and the balance is not
            topped up. Set one in{" "}
            <Anchor component={Link} to="/settings">
              Settings
            </Anchor>{" "}
            first.
          </Alert>
        )}
        <ErrorAlert error={auto.error} mb="xs" />
        <Group align="flex-end" gap="xs">
          <NumberField label="Threshold" {...rule.getInputProps("threshold")} />
          <NumberField label="Credits to top up" {...rule.getInputProps("recharge")} />
          <Button
            variant="light"
            loading={auto.isPending}
            disabled={threshold === "" || recharge === ""}
            onClick={() => auto.mutate({ threshold: Number(threshold), rechargeAmount: Number(recharge) })}
          >
            Turn on
          </Button>
          {sub.autoRecharge && (
            <Button variant="default" onClick={() => auto.mutate(null)}>
              Turn off
            </Button>
          )}
        </Group>
      </Section>
      <SubaccountUsage subaccountId={sub.id} />
      <Section title="History">
        <PagedTable
          query={history}
          rows={history.data?.data}
          loadingLabel="Loading the history"
          empty={
            <Text size="sm" c="dimmed">
              No credit movements yet.
            </Text>
          }
          label="Credit history"
          columns={["When", "Kind", "Amount", "Balance after", "Description"]}
          minWidth={640}
          cells={(t) => (
            <>
              <Table.Td>{fullTime(t.createdAt)}</Table.Td>
              <Table.Td>
                <Badge variant="light" size="sm" color={t.kind === "grant" ? "green" : "gray"}>
                  {t.kind === "bot_reply" ? "bot reply" : t.kind}
                </Badge>
              </Table.Td>
              <Table.Td>{t.amount > 0 ? `+${credits(t.amount)}` : credits(t.amount)}</Table.Td>
              <Table.Td>{credits(t.balanceAfter)}</Table.Td>
              <Table.Td>{t.description ?? "—"}</Table.Td>
            </>
          )}
        />
      </Section>
    </Stack>
  );
}
