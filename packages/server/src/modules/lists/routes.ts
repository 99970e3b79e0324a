// List endpoints: thin handlers (auth → validated input → service → response).
import type { AppContext } from "../../context.ts";
import { errorResponses } from "../../platform/http/openapi.ts";
import { type App, accountOf } from "../../platform/http/types.ts";
import { PageQuery, pageOf } from "../../platform/pagination.ts";
import { ContactJson } from "../contacts/schemas.ts";
import {
  AddMemberBody,
  AddMemberResponse,
  AddMembersBody,
  AddMembersResponse,
  CreateListBody,
  DeleteListResponse,
  ListJson,
  ListParams,
  MemberParams,
  RemoveMemberResponse,
} from "./schemas.ts";
import {
  addContactsToList,
  addContactToList,
  createList,
  deleteList,
  listView,
  pageLists,
  pageMembers,
  removeContactFromList,
  renameList,
  requireList,
} from "./service.ts";

export function listRoutes(app: App, { db }: AppContext): void {
  app.post(
    "/v1/lists",
    {
      schema: {
        operationId: "createList",
        summary: "Create a contact list (extension)",
        description: "Names need not be unique; the id identifies a list. Errors: VALIDATION_ERROR (400).",
        tags: ["lists"],
        body: CreateListBody,
        response: { 201: ListJson, ...errorResponses(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const list = await createList(db, accountOf(request).id, request.body.name);
      return reply.code(201).send(listView(list));
    },
  );

  app.get(
    "/v1/lists",
    {
      schema: {
        operationId: "listLists",
        summary: "List contact lists (extension)",
        description:
          "Oldest first, cursor pagination: pass the nextCursor of a page as cursor to get the next. " +
          "Errors: VALIDATION_ERROR, INVALID_CURSOR (400).",
        tags: ["lists"],
        querystring: PageQuery,
        response: { 200: pageOf(ListJson), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => pageLists(db, accountOf(request).id, request.query),
  );

  app.get(
    "/v1/lists/:listId",
    {
      schema: {
        operationId: "getList",
        summary: "Get a contact list (extension)",
        description: "Errors: LIST_NOT_FOUND (404), also for another account's list.",
        tags: ["lists"],
        params: ListParams,
        response: { 200: ListJson, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => listView(await requireList(db, accountOf(request).id, request.params.listId)),
  );

  app.patch(
    "/v1/lists/:listId",
    {
      schema: {
        operationId: "renameList",
        summary: "Rename a contact list (extension)",
        description: "Errors: VALIDATION_ERROR (400), LIST_NOT_FOUND (404).",
        tags: ["lists"],
        params: ListParams,
        body: CreateListBody,
        response: { 200: ListJson, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) =>
      listView(await renameList(db, accountOf(request).id, request.params.listId, request.body.name)),
  );

  app.delete(
    "/v1/lists/:listId",
    {
      schema: {
        operationId: "deleteList",
        summary: "Delete a contact list (extension)",
        description: "The list and its memberships go; the contacts stay. Errors: LIST_NOT_FOUND (404).",
        tags: ["lists"],
        params: ListParams,
        response: { 200: DeleteListResponse, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      await deleteList(db, accountOf(request).id, request.params.listId);
      return { success: true as const, listId: request.params.listId };
    },
  );

  app.post(
    "/v1/lists/:listId/contacts",
    {
      schema: {
        operationId: "addContactToList",
        summary: "Add a contact to a list",
        description:
          "Idempotent: added is false when the contact already was a member (never duplicated). Errors: " +
          "VALIDATION_ERROR (400, contactId missing), LIST_NOT_FOUND, CONTACT_NOT_FOUND (404).",
        tags: ["lists"],
        params: ListParams,
        body: AddMemberBody,
        response: { 200: AddMemberResponse, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { listId } = request.params;
      const { contactId } = request.body;
      const added = await addContactToList(db, accountOf(request).id, listId, contactId);
      return { success: true as const, listId, contactId, added };
    },
  );

  app.post(
    "/v1/lists/:listId/contacts/bulk",
    {
      schema: {
        operationId: "addContactsToList",
        summary: "Add many contacts to a list at once (extension)",
        description:
          "One transaction, up to 500 contact ids. Idempotent: members already there are counted in " +
          "alreadyMembers and left as they are; ids that are not this account's contacts are listed in " +
          "notFound and change nothing. Errors: VALIDATION_ERROR (400, contactIds missing, empty or over " +
          "500), LIST_NOT_FOUND (404).",
        tags: ["lists"],
        params: ListParams,
        body: AddMembersBody,
        response: { 200: AddMembersResponse, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { listId } = request.params;
      const result = await addContactsToList(db, accountOf(request).id, listId, request.body.contactIds);
      return { success: true as const, listId, ...result };
    },
  );

  app.get(
    "/v1/lists/:listId/contacts",
    {
      schema: {
        operationId: "listListContacts",
        summary: "List the contacts of a list",
        description:
          "Members in contact id order (oldest contact first), cursor pagination: pass the nextCursor " +
          "of a page as cursor to get the next; every member appears exactly once. Errors: " +
          "VALIDATION_ERROR, INVALID_CURSOR (400), LIST_NOT_FOUND (404).",
        tags: ["lists"],
        params: ListParams,
        querystring: PageQuery,
        response: { 200: pageOf(ContactJson), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => pageMembers(db, accountOf(request).id, request.params.listId, request.query),
  );

  app.delete(
    "/v1/lists/:listId/contacts/:contactId",
    {
      schema: {
        operationId: "removeContactFromList",
        summary: "Remove a contact from a list",
        description:
          "Idempotent: removed is false when the contact was not a member. The contact itself is kept. " +
          "Errors: LIST_NOT_FOUND, CONTACT_NOT_FOUND (404).",
        tags: ["lists"],
        params: MemberParams,
        response: { 200: RemoveMemberResponse, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { listId, contactId } = request.params;
      const removed = await removeContactFromList(db, accountOf(request).id, listId, contactId);
      return { success: true as const, listId, contactId, removed };
    },
  );
}
