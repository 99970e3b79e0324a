import { Stack, Title } from "@mantine/core";
import { QueryStatus } from "../../components/QueryStatus.tsx";
import { EmptyState } from "../../components/States.tsx";
import type { Session } from "../../lib/api-types.ts";
import { useSettings } from "../../lib/queries/settings.ts";
import { canManage } from "../../lib/session.ts";
import { useDocumentTitle } from "../../lib/useDocumentTitle.ts";
import { ApiKeySection } from "./ApiKeySection.tsx";
import { AssistSection, AuditLogSection } from "./AssistSections.tsx";
import { BotSection, LlmSection } from "./BotSections.tsx";
import { BrandSection } from "./BrandSection.tsx";
import { BusinessHoursSection } from "./BusinessHoursSection.tsx";
import { CannedRepliesSection } from "./CannedRepliesSection.tsx";
import { ExportSection } from "./ExportSection.tsx";
import { NotificationDefaultsSection } from "./NotificationDefaultsSection.tsx";
import { SettingsNav } from "./SettingsNav.tsx";
import { TeamSection } from "./TeamSection.tsx";
import { EventsWebhookSection, SigningSecretSection, WebhookSection } from "./WebhookSections.tsx";

export function SettingsPage({ session }: { session: Session }) {
  useDocumentTitle("Settings");
  const allowed = canManage(session);
  const settings = useSettings(allowed);
  if (!allowed) {
    return (
      <>
        <Title order={1} size="h2" mb="md">
          Settings
        </Title>
        <EmptyState title="Only owners and admins can open the settings">
          Ask an owner or an admin of {session.account.name} if something here needs changing.
        </EmptyState>
      </>
    );
  }
  return (
    <Stack maw={760} gap="lg">
      <Title order={1} size="h2">
        Settings
      </Title>
      <SettingsNav />
      <QueryStatus query={settings} />
      {settings.data && (
        <>
          <ApiKeySection settings={settings.data} />
          <WebhookSection settings={settings.data} />
          <SigningSecretSection />
          <EventsWebhookSection settings={settings.data} />
          <BotSection settings={settings.data} />
          <LlmSection settings={settings.data} />
          <NotificationDefaultsSection />
          <BusinessHoursSection />
          <CannedRepliesSection />
          <TeamSection session={session} />
          <ExportSection />
          {session.account.kind === "subaccount" && <AssistSection session={session} />}
          {session.account.kind === "subaccount" && <AuditLogSection />}
          {session.account.kind === "agency" && <BrandSection />}
        </>
      )}
    </Stack>
  );
}
