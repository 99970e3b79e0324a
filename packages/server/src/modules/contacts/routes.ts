// Contact endpoints: thin handlers (auth → validated input → service → response).
import { Type } from "typebox";
import type { AppContext } from "../../context.ts";
import { errorResponses } from "../../platform/http/openapi.ts";
import { type App, accountOf } from "../../platform/http/types.ts";
import { bulkContacts } from "./bulk.ts";
import { eraseContact } from "./erase.ts";
import {
  BulkContactsBody,
  BulkResponse,
  ContactJson,
  ContactPage,
  ContactParams,
  CreateContactBody,
  DeleteContactResponse,
  LookupQuery,
  LookupResponse,
  UpdateContactBody,
} from "./schemas.ts";
import {
  contactView,
  createContact,
  lookupContact,
  requireContact,
  searchContacts,
  updateContact,
} from "./service.ts";

const UPDATE_DESCRIPTION =
  "Partial update: absent fields are kept, null (or an empty string) clears firstName, lastName, phone " +
  "or email. A contact keeps at least a phone or an e-mail (400 MISSING_IDENTIFIER). A phone held by " +
  "another contact: 409 CONTACT_EXISTS. Errors: VALIDATION_ERROR, INVALID_PHONE, INVALID_EMAIL, " +
  "MISSING_IDENTIFIER (400), CONTACT_NOT_FOUND (404), CONTACT_EXISTS (409).";

export function contactRoutes(app: App, ctx: AppContext): void {
  const { db } = ctx;
  app.post(
    "/v1/contacts",
    {
      schema: {
        operationId: "createContact",
        summary: "Create a contact",
        description:
          "At least a phone or an e-mail. The phone must carry its country code (400 INVALID_PHONE) and is " +
          "stored as E.164; the e-mail is validated (400 INVALID_EMAIL) and lower-cased; neither given: " +
          "400 MISSING_IDENTIFIER. A new contact answers 201. A contact with the same phone already " +
          "exists: 200 with that contact, unchanged, nothing created.",
        tags: ["contacts"],
        body: CreateContactBody,
        response: {
          200: { ...ContactJson, description: "A contact with this phone already existed (unchanged)" },
          201: { ...ContactJson, description: "Contact created" },
          ...errorResponses(400, 401, 429),
        },
      },
    },
    async (request, reply) => {
      const { contact, created } = await createContact(db, accountOf(request).id, request.body);
      return reply.code(created ? 201 : 200).send(contactView(contact));
    },
  );

  app.get(
    "/v1/contacts",
    {
      schema: {
        operationId: "lookupContact",
        summary: "Look up a contact by phone number or e-mail, or list and search contacts",
        description:
          "With phoneNumber or email: that contact (phoneNumber wins when both are given). The phone is " +
          "normalised (`+1 (415) 555-0100` finds `+14155550100`), the e-mail compared case-insensitively; " +
          "several contacts with one e-mail: the earliest created. Without either (extension): a page of " +
          "contacts, newest first, optionally filtered by `q` (a substring of the name, phone, e-mail or " +
          "fromId) and `label`. Errors: INVALID_PHONE, INVALID_EMAIL, INVALID_CURSOR (400), " +
          "CONTACT_NOT_FOUND (404).",
        tags: ["contacts"],
        querystring: LookupQuery,
        response: { 200: Type.Union([LookupResponse, ContactPage]), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { phoneNumber, email, ...search } = request.query;
      if (!phoneNumber?.trim() && !email?.trim()) return searchContacts(db, accountOf(request).id, search);
      const contact = await lookupContact(db, accountOf(request).id, { phoneNumber, email });
      return { success: true as const, contactId: contact.id, contact: contactView(contact) };
    },
  );

  app.post(
    "/v1/contacts/bulk",
    {
      schema: {
        operationId: "bulkContacts",
        summary: "Label, unlabel or delete many contacts at once (extension)",
        description:
          "One transaction: everything or, on an error, nothing. Up to 500 ids; ids that are not this " +
          "account's (or no longer exist) are listed in notFound and change nothing. label adds the label " +
          "where missing (a contact would exceed 20 labels: 400), unlabel removes it where present; delete " +
          "erases each contact with all its data, as DELETE /v1/contacts/{contactId}. Errors: " +
          "VALIDATION_ERROR (400, naming the field).",
        tags: ["contacts"],
        body: BulkContactsBody,
        response: { 200: BulkResponse, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => bulkContacts(ctx, accountOf(request).id, request.body),
  );

  app.get(
    "/v1/contacts/:contactId",
    {
      schema: {
        operationId: "getContact",
        summary: "Get a contact",
        description: "Errors: CONTACT_NOT_FOUND (404), also for another account's contact.",
        tags: ["contacts"],
        params: ContactParams,
        response: { 200: ContactJson, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => contactView(await requireContact(db, accountOf(request).id, request.params.contactId)),
  );

  app.delete(
    "/v1/contacts/:contactId",
    {
      schema: {
        operationId: "deleteContact",
        summary: "Delete a contact and everything about it (extension)",
        description:
          "Right to erasure: the contact goes with its conversation, messages, delivery attempts, list " +
          "memberships and stored attachments, at once and for good. Credit ledger entries stay (they " +
          "hold no personal data). Errors: CONTACT_NOT_FOUND (404), also for another account's contact.",
        tags: ["contacts"],
        params: ContactParams,
        response: { 200: DeleteContactResponse, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const deleted = await eraseContact(ctx, accountOf(request).id, request.params.contactId);
      return { success: true as const, contactId: request.params.contactId, deleted };
    },
  );

  for (const method of ["PATCH", "PUT"] as const) {
    app.route({
      method,
      url: "/v1/contacts/:contactId",
      schema: {
        operationId: method === "PATCH" ? "updateContact" : "replaceContact",
        summary: method === "PATCH" ? "Update a contact" : "Update a contact (same as PATCH)",
        description: UPDATE_DESCRIPTION,
        tags: ["contacts"],
        params: ContactParams,
        body: UpdateContactBody,
        response: { 200: ContactJson, ...errorResponses(400, 401, 404, 409, 429) },
      },
      handler: async (request) =>
        contactView(await updateContact(db, accountOf(request).id, request.params.contactId, request.body)),
    });
  }
}
