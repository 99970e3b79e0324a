// /app/api for contacts and lists (web app part 2): the same services as /v1, behind the session.
// Every role works with contacts and lists; erasing a contact is for owners and admins.
import { Type } from "typebox";
import type { AppContext } from "../../context.ts";
import type { App } from "../../platform/http/types.ts";
import { PageQuery, pageOf } from "../../platform/pagination.ts";
import { requireManager } from "../accounts/team.ts";
import { eraseContact } from "../contacts/erase.ts";
import { externalIdsOfContacts } from "../contacts/repo.ts";
import {
  ContactJson,
  ContactParams,
  CreateContactBody,
  DeleteContactResponse,
  UpdateContactBody,
} from "../contacts/schemas.ts";
import {
  contactView,
  createContact,
  requireContact,
  searchContacts,
  updateContact,
} from "../contacts/service.ts";
import { latestConversationsOfContacts } from "../conversations/repo.ts";
import { AddMemberBody, CreateListBody, ListJson, ListParams, MemberParams } from "../lists/schemas.ts";
import {
  addContactToList,
  createList,
  deleteList,
  listsOfContact,
  listView,
  pageLists,
  pageMembers,
  removeContactFromList,
  renameList,
  requireList,
} from "../lists/service.ts";
import {
  AppContactDetail,
  AppContactPage,
  AppCreatedContact,
  AppMemberAdded,
  AppMemberRemoved,
  NoContent,
} from "./responses.ts";
import { sessionOf } from "./session.ts";

const TAGS = ["app"];

const ContactSearchQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 200 })),
  label: Type.Optional(Type.String({ maxLength: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
});

/**
 * The contact's latest conversation, its channel's type and the contact's sender id there (`fromId`):
 * the app names a contact without a name by them ("Widget visitor · vis_…").
 */
function channelOf(
  latest: { id: string; channelType: string | null } | undefined,
  fromId: string | null | undefined,
) {
  return {
    conversationId: latest?.id ?? null,
    channelType: latest?.channelType ?? null,
    fromId: fromId ?? null,
  };
}

export function directoryRoutes(app: App, ctx: AppContext): void {
  const { db } = ctx;
  const accountOf = (request: Parameters<typeof sessionOf>[0]) => sessionOf(request).account.id;

  app.get(
    "/contacts",
    {
      schema: {
        operationId: "appListContacts",
        response: { 200: AppContactPage },
        tags: TAGS,
        querystring: ContactSearchQuery,
      },
    },
    async (request) => {
      const accountId = accountOf(request);
      const page = await searchContacts(db, accountId, request.query);
      const conversations = await latestConversationsOfContacts(
        db.kysely,
        accountId,
        page.data.map((c) => c.id),
      );
      const fromIds = await externalIdsOfContacts(
        db.kysely,
        accountId,
        page.data.map((c) => c.id),
      );
      return {
        ...page,
        data: page.data.map((c) => ({ ...c, ...channelOf(conversations.get(c.id), fromIds.get(c.id)) })),
      };
    },
  );

  app.post(
    "/contacts",
    {
      schema: {
        operationId: "appCreateContact",
        response: { 200: AppCreatedContact, 201: AppCreatedContact },
        tags: TAGS,
        body: CreateContactBody,
      },
    },
    async (request, reply) => {
      const { contact, created } = await createContact(db, accountOf(request), request.body);
      return reply.code(created ? 201 : 200).send({ ...contactView(contact), created });
    },
  );

  app.get(
    "/contacts/:contactId",
    {
      schema: {
        operationId: "appGetContact",
        response: { 200: AppContactDetail },
        tags: TAGS,
        params: ContactParams,
      },
    },
    async (request) => {
      const accountId = accountOf(request);
      const contact = await requireContact(db, accountId, request.params.contactId);
      const [lists, conversations] = await Promise.all([
        listsOfContact(db, accountId, contact.id),
        latestConversationsOfContacts(db.kysely, accountId, [contact.id]),
      ]);
      return {
        contact: contactView(contact),
        lists,
        ...channelOf(conversations.get(contact.id), contact.external_id),
      };
    },
  );

  app.patch(
    "/contacts/:contactId",
    {
      schema: {
        operationId: "appUpdateContact",
        response: { 200: ContactJson },
        tags: TAGS,
        params: ContactParams,
        body: UpdateContactBody,
      },
    },
    async (request) =>
      contactView(await updateContact(db, accountOf(request), request.params.contactId, request.body)),
  );

  app.delete(
    "/contacts/:contactId",
    {
      schema: {
        operationId: "appDeleteContact",
        response: { 200: DeleteContactResponse },
        tags: TAGS,
        params: ContactParams,
      },
    },
    async (request) => {
      const info = sessionOf(request);
      requireManager(info);
      const deleted = await eraseContact(ctx, info.account.id, request.params.contactId);
      return { success: true as const, contactId: request.params.contactId, deleted };
    },
  );

  app.get(
    "/lists",
    {
      schema: {
        operationId: "appListLists",
        response: { 200: pageOf(ListJson) },
        tags: TAGS,
        querystring: PageQuery,
      },
    },
    async (request) => pageLists(db, accountOf(request), request.query),
  );

  app.post(
    "/lists",
    {
      schema: { operationId: "appCreateList", response: { 201: ListJson }, tags: TAGS, body: CreateListBody },
    },
    async (request, reply) =>
      reply.code(201).send(listView(await createList(db, accountOf(request), request.body.name))),
  );

  app.get(
    "/lists/:listId",
    { schema: { operationId: "appGetList", response: { 200: ListJson }, tags: TAGS, params: ListParams } },
    async (request) => listView(await requireList(db, accountOf(request), request.params.listId)),
  );

  app.patch(
    "/lists/:listId",
    {
      schema: {
        operationId: "appRenameList",
        response: { 200: ListJson },
        tags: TAGS,
        params: ListParams,
        body: CreateListBody,
      },
    },
    async (request) =>
      listView(await renameList(db, accountOf(request), request.params.listId, request.body.name)),
  );

  app.delete(
    "/lists/:listId",
    {
      schema: { operationId: "appDeleteList", response: { 204: NoContent }, tags: TAGS, params: ListParams },
    },
    async (request, reply) => {
      await deleteList(db, accountOf(request), request.params.listId);
      return reply.code(204).send();
    },
  );

  app.get(
    "/lists/:listId/contacts",
    {
      schema: {
        operationId: "appListMembers",
        response: { 200: pageOf(ContactJson) },
        tags: TAGS,
        params: ListParams,
        querystring: PageQuery,
      },
    },
    async (request) => pageMembers(db, accountOf(request), request.params.listId, request.query),
  );

  app.post(
    "/lists/:listId/contacts",
    {
      schema: {
        operationId: "appAddListMember",
        response: { 200: AppMemberAdded },
        tags: TAGS,
        params: ListParams,
        body: AddMemberBody,
      },
    },
    async (request) => {
      const added = await addContactToList(
        db,
        accountOf(request),
        request.params.listId,
        request.body.contactId,
      );
      return { success: true as const, added };
    },
  );

  app.delete(
    "/lists/:listId/contacts/:contactId",
    {
      schema: {
        operationId: "appRemoveListMember",
        response: { 200: AppMemberRemoved },
        tags: TAGS,
        params: MemberParams,
      },
    },
    async (request) => {
      const { listId, contactId } = request.params;
      const removed = await removeContactFromList(db, accountOf(request), listId, contactId);
      return { success: true as const, removed };
    },
  );
}
