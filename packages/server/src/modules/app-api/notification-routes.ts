// /app/api for the bell and the notification preferences: a person's own, and (owners and admins) the
// account's defaults with the low-credits threshold.
import type { AppContext } from "../../context.ts";
import type { App } from "../../platform/http/types.ts";
import { requireManager } from "../accounts/team.ts";
import { ACCOUNT_SCOPE } from "../notifications/repo.ts";
import {
  BellQuery,
  MarkReadBody,
  NotificationDefaultsBody,
  PreferencesBody,
} from "../notifications/schemas.ts";
import {
  accountDefaults,
  bellOf,
  kindsView,
  markBellRead,
  preferencesOf,
  updatePreferences,
} from "../notifications/service.ts";
import {
  NoContent,
  NotificationDefaultsJson,
  NotificationPageJson,
  NotificationPreferencesJson,
} from "./responses.ts";
import { sessionOf } from "./session.ts";

const TAGS = ["app"];

export function notificationRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/notifications",
    {
      schema: {
        operationId: "appListNotifications",
        response: { 200: NotificationPageJson },
        tags: TAGS,
        querystring: BellQuery,
      },
    },
    async (request) => {
      const { account, user } = sessionOf(request);
      return bellOf(ctx.db.kysely, account.id, user.id, {
        limit: request.query.limit ?? 20,
        before: request.query.before ?? null,
      });
    },
  );

  app.post(
    "/notifications/read",
    {
      schema: {
        operationId: "appMarkNotificationsRead",
        response: { 204: NoContent },
        tags: TAGS,
        body: MarkReadBody,
      },
    },
    async (request, reply) => {
      const { account, user } = sessionOf(request);
      await markBellRead(ctx.db, account.id, user.id, request.body.ids ?? null);
      return reply.code(204).send();
    },
  );

  const ownPreferences = async (accountId: string, userId: string) => ({
    kinds: kindsView(),
    preferences: (await preferencesOf(ctx.db.kysely, accountId, [userId])).get(userId) ?? {},
  });

  app.get(
    "/notification-preferences",
    {
      schema: {
        operationId: "appGetNotificationPreferences",
        response: { 200: NotificationPreferencesJson },
        tags: TAGS,
      },
    },
    async (request) => {
      const { account, user } = sessionOf(request);
      return ownPreferences(account.id, user.id);
    },
  );

  app.put(
    "/notification-preferences",
    {
      schema: {
        operationId: "appUpdateNotificationPreferences",
        response: { 200: NotificationPreferencesJson },
        tags: TAGS,
        body: PreferencesBody,
      },
    },
    async (request) => {
      const { account, user } = sessionOf(request);
      await updatePreferences(ctx.db, account.id, user.id, request.body.preferences);
      return ownPreferences(account.id, user.id);
    },
  );

  const defaultsView = async (accountId: string) => ({
    kinds: kindsView(),
    ...(await accountDefaults(ctx.db.kysely, accountId)),
  });

  app.get(
    "/settings/notifications",
    {
      schema: {
        operationId: "appGetNotificationDefaults",
        response: { 200: NotificationDefaultsJson },
        tags: TAGS,
      },
    },
    async (request) => {
      const info = sessionOf(request);
      requireManager(info);
      return defaultsView(info.account.id);
    },
  );

  app.put(
    "/settings/notifications",
    {
      schema: {
        operationId: "appUpdateNotificationDefaults",
        response: { 200: NotificationDefaultsJson },
        tags: TAGS,
        body: NotificationDefaultsBody,
      },
    },
    async (request) => {
      const info = sessionOf(request);
      requireManager(info);
      await updatePreferences(
        ctx.db,
        info.account.id,
        ACCOUNT_SCOPE,
        request.body.defaults ?? {},
        request.body.creditsLowThreshold,
      );
      return defaultsView(info.account.id);
    },
  );
}
