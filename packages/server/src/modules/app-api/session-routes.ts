// /app/api onboarding, sign-in and sign-out, password change and forgotten passwords. Onboarding,
// sign-in and the password-reset links are open (`auth: "none"`): the link or the password is the
// credential.
import type { AppContext } from "../../context.ts";
import { AppError } from "../../platform/errors.ts";
import type { App } from "../../platform/http/types.ts";
import { requestLinkBase } from "../../platform/public-url.ts";
import {
  completePasswordReset,
  describePasswordReset,
  requestPasswordReset,
} from "../accounts/password-reset.ts";
import { findAccountById } from "../accounts/repo.ts";
import { isSuspended } from "../accounts/service.ts";
import {
  changePassword,
  endSession,
  resolveSession,
  SESSION_COOKIE,
  sessionView,
  setDisplayName,
  signIn,
} from "../accounts/sessions.ts";
import { onboard, onboardingAllowed } from "../accounts/team.ts";
import { anyAccountExists } from "../accounts/users-repo.ts";
import { resolveAssist } from "../assist/service.ts";
import { assistView } from "./assist-routes.ts";
import { brandedSession } from "./brand-routes.ts";
import {
  NoContent,
  OnboardedJson,
  OnboardingState,
  PasswordResetAccepted,
  PasswordResetJson,
  SessionJson,
  SessionStateJson,
} from "./responses.ts";
import {
  OnboardingBody,
  OnboardingQuery,
  PasswordBody,
  PasswordResetBody,
  PasswordResetParams,
  PasswordResetRequestBody,
  ProfileBody,
  SignInBody,
} from "./schemas.ts";
import {
  assistOf,
  clearSessionCookie,
  clientAddress,
  OPEN,
  onboardingAddress,
  readCookie,
  sessionOf,
  setSessionCookie,
} from "./session.ts";

const TAGS = ["app"];

export function sessionRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/onboarding",
    {
      config: OPEN,
      schema: {
        operationId: "appGetOnboarding",
        response: { 200: OnboardingState },
        tags: TAGS,
        querystring: OnboardingQuery,
      },
    },
    async (request) => {
      const needed = !(await anyAccountExists(ctx.db.kysely));
      return {
        needed,
        allowed: needed && onboardingAllowed(ctx, onboardingAddress(ctx, request), request.query.setupToken),
      };
    },
  );

  app.post(
    "/onboarding",
    {
      config: OPEN,
      schema: {
        operationId: "appOnboard",
        response: { 201: OnboardedJson },
        tags: TAGS,
        body: OnboardingBody,
      },
    },
    async (request, reply) => {
      if (await anyAccountExists(ctx.db.kysely)) {
        throw new AppError("ALREADY_ONBOARDED", "this server already has an account; sign in instead");
      }
      if (!onboardingAllowed(ctx, onboardingAddress(ctx, request), request.body.setupToken)) {
        throw new AppError(
          "FORBIDDEN",
          "Onboarding is open from the server itself or with the setup link printed at start",
        );
      }
      const { token, info, apiKey } = await onboard(ctx, request.body);
      setSessionCookie(reply, token, info.session.expires_at);
      // The API key made with the account: in this answer only (the page shows it once, to copy).
      return reply.code(201).send({ ...sessionView(info), apiKey });
    },
  );

  app.get(
    "/session",
    { schema: { operationId: "appGetSession", response: { 200: SessionJson }, tags: TAGS } },
    async (request) => ({
      ...(await brandedSession(ctx, sessionOf(request))),
      assist: assistView(assistOf(request)),
    }),
  );

  // The app's "who is signed in?" on every page: 200 either way, so a signed-out page logs no 401 in
  // the browser's console (GET /session keeps answering 401 without a session, for other callers).
  app.get(
    "/session/state",
    {
      config: OPEN,
      schema: { operationId: "appProbeSession", response: { 200: SessionStateJson }, tags: TAGS },
    },
    async (request, reply) => {
      const token = readCookie(request.headers.cookie, SESSION_COOKIE);
      const info = token ? await resolveSession(ctx.db, token) : null;
      if (!token || !info) return { signedIn: false };
      // The app shows a "suspended" page instead of the sign-in form.
      if (isSuspended(info.account)) {
        return { signedIn: false, suspended: true, csrfToken: info.session.csrf_token };
      }
      if (info.extended) setSessionCookie(reply, token, info.session.expires_at);
      // While assisting a client the app shows that client, with the banner.
      const assisted = await resolveAssist(ctx, info);
      const session = await brandedSession(ctx, assisted?.info ?? info);
      return { signedIn: true, session: { ...session, assist: assistView(assisted?.assist) } };
    },
  );

  // The signed-in person's own display name (every role).
  app.patch(
    "/profile",
    {
      // The agency person's own profile and password are not changed from inside a client.
      config: { assist: "refuse" },
      schema: {
        operationId: "appUpdateProfile",
        response: { 200: SessionJson },
        tags: TAGS,
        body: ProfileBody,
      },
    },
    async (request) =>
      brandedSession(ctx, await setDisplayName(ctx.db, sessionOf(request), request.body.name)),
  );

  app.post(
    "/session",
    {
      config: OPEN,
      schema: { operationId: "appSignIn", response: { 200: SessionJson }, tags: TAGS, body: SignInBody },
    },
    async (request, reply) => {
      const {
        token,
        session: s,
        user,
      } = await signIn(ctx.db, {
        email: request.body.email,
        password: request.body.password,
        address: clientAddress(ctx, request),
      });
      const account = await findAccountById(ctx.db.kysely, user.account_id);
      if (!account) throw new AppError("INVALID_CREDENTIALS", "The e-mail address or the password is wrong");
      setSessionCookie(reply, token, s.expires_at);
      return brandedSession(ctx, { user, account, session: s });
    },
  );

  app.delete(
    "/session",
    {
      config: { acceptsSuspended: true, assist: "agency" },
      schema: { operationId: "appSignOut", response: { 204: NoContent }, tags: TAGS },
    },
    async (request, reply) => {
      await endSession(ctx.db, sessionOf(request).session);
      clearSessionCookie(reply);
      return reply.code(204).send();
    },
  );

  app.post(
    "/password",
    {
      config: { assist: "refuse" },
      schema: {
        operationId: "appChangePassword",
        response: { 204: NoContent },
        tags: TAGS,
        body: PasswordBody,
      },
    },
    async (request, reply) => {
      await changePassword(ctx.db, sessionOf(request), {
        currentPassword: request.body.currentPassword,
        newPassword: request.body.newPassword,
        address: clientAddress(ctx, request),
      });
      return reply.code(204).send();
    },
  );

  // ---- forgotten password (open: the link in the e-mail is the credential) ------------------------

  app.post(
    "/password-resets",
    {
      config: OPEN,
      schema: {
        operationId: "appRequestPasswordReset",
        response: { 202: PasswordResetAccepted },
        tags: TAGS,
        body: PasswordResetRequestBody,
      },
    },
    async (request, reply) => {
      // The same answer whether or not the address signs in here.
      await requestPasswordReset(ctx, {
        email: request.body.email,
        linkBase: requestLinkBase(ctx.config, request),
      });
      return reply.code(202).send({ ok: true });
    },
  );

  app.get(
    "/password-resets/:token",
    {
      config: OPEN,
      schema: {
        operationId: "appGetPasswordReset",
        response: { 200: PasswordResetJson },
        tags: TAGS,
        params: PasswordResetParams,
      },
    },
    async (request) => describePasswordReset(ctx, request.params.token),
  );

  app.post(
    "/password-resets/:token",
    {
      config: OPEN,
      schema: {
        operationId: "appResetPassword",
        response: { 204: NoContent },
        tags: TAGS,
        params: PasswordResetParams,
        body: PasswordResetBody,
      },
    },
    async (request, reply) => {
      await completePasswordReset(ctx, request.params.token, request.body);
      return reply.code(204).send();
    },
  );
}
