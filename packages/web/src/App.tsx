import { Center, Loader } from "@mantine/core";
import { Navigate, Route, Routes, useLocation } from "react-router";
import { AppLayout } from "./components/AppLayout.tsx";
import { ErrorState } from "./components/States.tsx";
import { useOnboardingStatus } from "./lib/queries/auth.ts";
import { useSession } from "./lib/session.ts";
import { AccountPage } from "./pages/account/AccountPage.tsx";
import { AgencyPage } from "./pages/agency/AgencyPage.tsx";
import { SubaccountPage } from "./pages/agency/SubaccountPage.tsx";
import { ForgotPasswordPage } from "./pages/auth/ForgotPasswordPage.tsx";
import { InvitePage } from "./pages/auth/InvitePage.tsx";
import { OnboardingPage } from "./pages/auth/OnboardingPage.tsx";
import { ResetPasswordPage } from "./pages/auth/ResetPasswordPage.tsx";
import { SignInPage } from "./pages/auth/SignInPage.tsx";
import { CampaignPage } from "./pages/campaigns/CampaignPage.tsx";
import { CampaignsPage } from "./pages/campaigns/CampaignsPage.tsx";
import { ChannelsPage } from "./pages/channels/ChannelsPage.tsx";
import { ContactPage } from "./pages/contacts/ContactPage.tsx";
import { ContactsPage } from "./pages/contacts/ContactsPage.tsx";
import { DashboardPage } from "./pages/dashboard/DashboardPage.tsx";
import { InboxPage } from "./pages/inbox/InboxPage.tsx";
import { ListPage } from "./pages/lists/ListPage.tsx";
import { ListsPage } from "./pages/lists/ListsPage.tsx";
import { NotFoundPage } from "./pages/not-found/NotFoundPage.tsx";
import { SettingsPage } from "./pages/settings/SettingsPage.tsx";

function FullPageLoader() {
  return (
    <Center h="100vh">
      <Loader role="status" aria-label="Loading" />
    </Center>
  );
}

/** Signed out: a fresh install goes to onboarding, everyone else to sign-in. */
function SignedOutRedirect() {
  const location = useLocation();
  const setupToken = new URLSearchParams(location.search).get("setupToken");
  const onboarding = useOnboardingStatus(setupToken);
  if (onboarding.isPending) return <FullPageLoader />;
  if (onboarding.data?.needed) {
    return (
      <Navigate
        to={`/onboarding${setupToken ? `?setupToken=${encodeURIComponent(setupToken)}` : ""}`}
        replace
      />
    );
  }
  const next =
    location.pathname === "/" ? "" : `?next=${encodeURIComponent(location.pathname + location.search)}`;
  return <Navigate to={`/signin${next}`} replace />;
}

export function App() {
  const session = useSession();
  if (session.isPending) return <FullPageLoader />;
  if (session.isError) {
    return (
      <Center h="100vh" p="md">
        <ErrorState error={session.error} onRetry={() => void session.refetch()} />
      </Center>
    );
  }
  const me = session.data;
  return (
    <Routes>
      <Route path="/onboarding" element={<OnboardingPage />} />
      <Route path="/signin" element={<SignInPage />} />
      <Route path="/invite/:token" element={<InvitePage />} />
      <Route path="/forgot-password" element={<ForgotPasswordPage />} />
      <Route path="/reset-password/:token" element={<ResetPasswordPage />} />
      {me ? (
        <Route element={<AppLayout session={me} />}>
          <Route path="/" element={<Navigate to="/dashboard" replace />} />
          <Route path="/inbox" element={<InboxPage session={me} />} />
          <Route path="/inbox/:conversationId" element={<InboxPage session={me} />} />
          <Route path="/settings" element={<SettingsPage session={me} />} />
          <Route path="/settings/channels" element={<ChannelsPage session={me} />} />
          <Route path="/account" element={<AccountPage session={me} />} />
          <Route path="/dashboard" element={<DashboardPage />} />
          <Route path="/contacts" element={<ContactsPage />} />
          <Route path="/contacts/:contactId" element={<ContactPage session={me} />} />
          <Route path="/lists" element={<ListsPage />} />
          <Route path="/lists/:listId" element={<ListPage />} />
          <Route path="/campaigns" element={<CampaignsPage session={me} />} />
          <Route path="/campaigns/:campaignId" element={<CampaignPage session={me} />} />
          <Route path="/agency" element={<AgencyPage session={me} />} />
          <Route path="/agency/:subaccountId" element={<SubaccountPage />} />
          <Route path="*" element={<NotFoundPage />} />
        </Route>
      ) : (
        <Route path="*" element={<SignedOutRedirect />} />
      )}
    </Routes>
  );
}
