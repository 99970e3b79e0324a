// Knowledge sources' schemas (/v1/campaigns/{campaignId}/sources and the web app's
// /app/api/campaigns/:campaignId/sources).
import { Type } from "typebox";
import { PageQuery } from "../../platform/pagination.ts";

/** A file may be this large, decoded. */
export const MAX_FILE_BYTES = 20 * 1024 * 1024;
/** The JSON body of a file upload: the base64 of MAX_FILE_BYTES (4/3) and room for the rest. */
export const SOURCE_BODY_LIMIT_BYTES = Math.ceil((MAX_FILE_BYTES * 4) / 3) + 64 * 1024;
export const DEFAULT_MAX_PAGES = 50;
export const MAX_MAX_PAGES = 200;

const Url = Type.String({
  minLength: 1,
  maxLength: 2000,
  description: "An http or https address the server fetches (private and local addresses are refused)",
});
const DailyResync = Type.Boolean({
  description: "Fetch it again every 24 hours, so the bot follows changes to the page (default false)",
});

export const SourceJson = Type.Object(
  {
    id: Type.String({ description: "ks_…" }),
    campaignId: Type.String(),
    type: Type.Union([Type.Literal("file"), Type.Literal("url"), Type.Literal("sitemap")]),
    name: Type.String({ description: "The file's name, the page's title, or the address" }),
    url: Type.Union([Type.String(), Type.Null()], { description: "url and sitemap sources" }),
    contentType: Type.Union([Type.String(), Type.Null()], { description: "file sources" }),
    status: Type.Union([Type.Literal("processing"), Type.Literal("ready"), Type.Literal("error")], {
      description:
        "processing: being read (the bot keeps using the passages of the last sync meanwhile); ready; " +
        "error: the last sync failed, see `error` (the passages of an earlier sync are kept)",
    }),
    error: Type.Union([Type.String(), Type.Null()], { description: "Why the last sync failed" }),
    passages: Type.Integer({ description: "Passages the bot searches" }),
    bytes: Type.Integer({ description: "Bytes read: the file, or the pages fetched" }),
    dailyResync: Type.Boolean(),
    lastSyncedAt: Type.Union([Type.String(), Type.Null()], {
      description: "When the last successful sync finished (ISO 8601 UTC)",
    }),
    createdAt: Type.String({ description: "ISO 8601 UTC" }),
    updatedAt: Type.String({ description: "ISO 8601 UTC" }),
  },
  {
    description:
      "A knowledge source: a file, a web page or a sitemap's pages the campaign's bot answers from",
  },
);

export const FILE_CONTENT_TYPES = [
  "application/pdf",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  "text/markdown",
  "text/html",
  "text/plain",
] as const;

/**
 * One object for the three kinds (a union of objects would not survive the validator's removal of
 * unknown fields, which strips one branch's fields while trying another): the fields each type needs
 * are checked by the service, naming the missing one.
 */
export const CreateSourceBody = Type.Object(
  {
    type: Type.Union([Type.Literal("file"), Type.Literal("url"), Type.Literal("sitemap")], {
      description:
        "file: name, contentType and data; url: url (a web page); sitemap: url (a sitemap.xml) and maxPages",
    }),
    name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: "file: the file's name (required)" }),
    ),
    contentType: Type.Optional(
      Type.Union(
        FILE_CONTENT_TYPES.map((t) => Type.Literal(t)),
        { description: "file: PDF, DOCX, Markdown, HTML or plain text (required)" },
      ),
    ),
    data: Type.Optional(
      Type.String({ minLength: 1, description: "file: the file, base64, at most 20 MB decoded (required)" }),
    ),
    url: Type.Optional(Url),
    maxPages: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_MAX_PAGES,
        description: "sitemap: pages read at most, 1 to 200 (default 50)",
      }),
    ),
    dailyResync: Type.Optional(DailyResync),
  },
  { additionalProperties: false },
);

export const UpdateSourceBody = Type.Object({ dailyResync: DailyResync }, { additionalProperties: false });

export const SourcesParams = Type.Object({ campaignId: Type.String({ maxLength: 64 }) });
export const SourceParams = Type.Object({
  campaignId: Type.String({ maxLength: 64 }),
  sourceId: Type.String({ maxLength: 64 }),
});

export const SourceListQuery = PageQuery;

export const DeleteSourceResponse = Type.Object({
  success: Type.Literal(true),
  sourceId: Type.String(),
});
