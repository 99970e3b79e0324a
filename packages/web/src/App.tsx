import { Center, Loader } from "@mantine/core";
import { lazy, Suspense } from "react";
import { Navigate, Outlet, Route, Routes, useLocation } from "react-router";
import { AppLayout } from "./components/AppLayout.tsx";
import { ErrorState } from "./components/States.tsx";
import { useOnboardingStatus } from "./lib/queries/auth.ts";
import { accountSuspended, useSession } from "./lib/session.ts";

// Each page is its own chunk, fetched when first visited: the first load carries only the shell and
// its page (docs/performance.md, "Web app size"). A new page: one more line like these.
const AccountPage = lazy(() =>
  import("./pages/account/AccountPage.tsx").then((m) => ({ default: m.AccountPage })),
);
const AgencyPage = lazy(() =>
  import("./pages/agency/AgencyPage.tsx").then((m) => ({ default: m.AgencyPage })),
);
const SubaccountPage = lazy(() =>
  import("./pages/agency/SubaccountPage.tsx").then((m) => ({ default: m.SubaccountPage })),
);
const ForgotPasswordPage = lazy(() =>
  import("./pages/auth/ForgotPasswordPage.tsx").then((m) => ({ default: m.ForgotPasswordPage })),
);
const InvitePage = lazy(() => import("./pages/auth/InvitePage.tsx").then((m) => ({ default: m.InvitePage })));
const OnboardingPage = lazy(() =>
  import("./pages/auth/OnboardingPage.tsx").then((m) => ({ default: m.OnboardingPage })),
);
const ResetPasswordPage = lazy(() =>
  import("./pages/auth/ResetPasswordPage.tsx").then((m) => ({ default: m.ResetPasswordPage })),
);
const SuspendedPage = lazy(() =>
  import("./pages/auth/SuspendedPage.tsx").then((m) => ({ default: m.SuspendedPage })),
);
const SignInPage = lazy(() => import("./pages/auth/SignInPage.tsx").then((m) => ({ default: m.SignInPage })));
const CampaignPage = lazy(() =>
  import("./pages/campaigns/CampaignPage.tsx").then((m) => ({ default: m.CampaignPage })),
);
const CampaignsPage = lazy(() =>
  import("./pages/campaigns/CampaignsPage.tsx").then((m) => ({ default: m.CampaignsPage })),
);
const ChannelsPage = lazy(() =>
  import("./pages/channels/ChannelsPage.tsx").then((m) => ({ default: m.ChannelsPage })),
);
const ContactPage = lazy(() =>
  import("./pages/contacts/ContactPage.tsx").then((m) => ({ default: m.ContactPage })),
);
const ContactsPage = lazy(() =>
  import("./pages/contacts/ContactsPage.tsx").then((m) => ({ default: m.ContactsPage })),
);
const DashboardPage = lazy(() =>
  import("./pages/dashboard/DashboardPage.tsx").then((m) => ({ default: m.DashboardPage })),
);
const InboxPage = lazy(() => import("./pages/inbox/InboxPage.tsx").then((m) => ({ default: m.InboxPage })));
const ListPage = lazy(() => import("./pages/lists/ListPage.tsx").then((m) => ({ default: m.ListPage })));
const ListsPage = lazy(() => import("./pages/lists/ListsPage.tsx").then((m) => ({ default: m.ListsPage })));
const NotFoundPage = lazy(() =>
  import("./pages/not-found/NotFoundPage.tsx").then((m) => ({ default: m.NotFoundPage })),
);
const SettingsPage = lazy(() =>
  import("./pages/settings/SettingsPage.tsx").then((m) => ({ default: m.SettingsPage })),
);

function FullPageLoader() {
  return (
    <Center h="100vh">
      <Loader role="status" aria-label="Loading" />
    </Center>
  );
}

/** Inside the layout while a page's chunk loads: the navigation stays, the page area shows a loader. */
function PageChunk() {
  return (
    <Suspense
      fallback={
        <Center py="xl">
          <Loader role="status" aria-label="Loading" />
        </Center>
      }
    >
      <Outlet />
    </Suspense>
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
  if (!session.data && accountSuspended()) {
    return (
      <Suspense fallback={<FullPageLoader />}>
        <SuspendedPage />
      </Suspense>
    );
  }
  if (session.isError) {
    return (
      <Center h="100vh" p="md">
        <ErrorState error={session.error} onRetry={() => void session.refetch()} />
      </Center>
    );
  }
  const me = session.data;
  return (
    <Suspense fallback={<FullPageLoader />}>
      <Routes>
        <Route path="/onboarding" element={<OnboardingPage />} />
        <Route path="/signin" element={<SignInPage />} />
        <Route path="/invite/:token" element={<InvitePage />} />
        <Route path="/forgot-password" element={<ForgotPasswordPage />} />
        <Route path="/reset-password/:token" element={<ResetPasswordPage />} />
        {me ? (
          <Route element={<AppLayout session={me} />}>
            <Route element={<PageChunk />}>
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
          </Route>
        ) : (
          <Route path="*" element={<SignedOutRedirect />} />
        )}
      </Routes>
    </Suspense>
  );
}
