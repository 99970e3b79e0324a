// /app/api bulk actions (the contacts page's and the inbox's selections): the same services as the
// /v1 bulk endpoints, behind the session. Erasing contacts stays for owners and admins, as one by one.
import type { AppContext } from "../../context.ts";
import type { App } from "../../platform/http/types.ts";
import { requireManager } from "../accounts/team.ts";
import { findUser } from "../accounts/users-repo.ts";
import { bulkContacts } from "../contacts/bulk.ts";
import { BulkContactsBody, BulkResponse } from "../contacts/schemas.ts";
import { bulkConversations } from "../conversations/bulk.ts";
import { BulkConversationsBody } from "../conversations/schemas.ts";
import { AddMembersBody, AddMembersResponse, ListParams } from "../lists/schemas.ts";
import { addContactsToList } from "../lists/service.ts";
import { notify } from "../notifications/service.ts";
import { contactLabel } from "./inbox-routes.ts";
import { sessionOf } from "./session.ts";

const TAGS = ["app"];

export function bulkRoutes(app: App, ctx: AppContext): void {
  const { db } = ctx;

  app.post(
    "/conversations/bulk",
    {
      schema: {
        operationId: "appBulkConversations",
        response: { 200: BulkResponse },
        tags: TAGS,
        body: BulkConversationsBody,
      },
    },
    async (request) => {
      const { account, user } = sessionOf(request);
      const accountId = account.id;
      return bulkConversations(db, accountId, request.body, {
        isUser: async (userId) => Boolean(await findUser(db.kysely, accountId, userId)),
        // As for one conversation: each one assigned to someone else than the person doing it is told.
        onAssigned: async (trx, assigned) => {
          const assigneeId = request.body.assigneeId;
          if (!assigneeId || assigneeId === user.id) return;
          for (const c of assigned) {
            await notify(trx, {
              accountId,
              kind: "conversation.assigned",
              title: `${user.name ?? user.email} assigned you a conversation with ${contactLabel(c)}`,
              body: "It is in your inbox under Mine.",
              link: `/inbox/${c.id}`,
              userIds: [assigneeId],
              webhook: {
                conversation_id: c.id,
                assignee_id: assigneeId,
                assigned_by: user.id,
                created_at: new Date().toISOString(),
              },
              at: Date.now(),
            });
          }
        },
      });
    },
  );

  app.post(
    "/contacts/bulk",
    {
      schema: {
        operationId: "appBulkContacts",
        response: { 200: BulkResponse },
        tags: TAGS,
        body: BulkContactsBody,
      },
    },
    async (request) => {
      const info = sessionOf(request);
      if (request.body.action === "delete") requireManager(info);
      return bulkContacts(ctx, info.account.id, request.body);
    },
  );

  app.post(
    "/lists/:listId/contacts/bulk",
    {
      schema: {
        operationId: "appAddListMembers",
        response: { 200: AddMembersResponse },
        tags: TAGS,
        params: ListParams,
        body: AddMembersBody,
      },
    },
    async (request) => {
      const { listId } = request.params;
      const result = await addContactsToList(
        db,
        sessionOf(request).account.id,
        listId,
        request.body.contactIds,
      );
      return { success: true as const, listId, ...result };
    },
  );
}
