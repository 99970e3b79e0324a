// Canned replies' schemas (/v1/canned-replies and the web app's /app/api/canned-replies).
import { Type } from "typebox";

export const SHORTCUT_MAX_LENGTH = 32;
export const TITLE_MAX_LENGTH = 200;
export const BODY_MAX_LENGTH = 4000;

const Shortcut = Type.String({
  minLength: 1,
  maxLength: SHORTCUT_MAX_LENGTH,
  pattern: "^[A-Za-z0-9_-]+$",
  description:
    'What follows "/" in the reply box: 1 to 32 letters, digits, "-" or "_", stored in lower case; unique ' +
    "in the account",
});
const Title = Type.String({ minLength: 1, maxLength: TITLE_MAX_LENGTH, description: "1 to 200 characters" });
const Body = Type.String({
  minLength: 1,
  maxLength: BODY_MAX_LENGTH,
  description:
    "The text inserted, 1 to 4,000 characters. The web app fills {{firstName}}, {{lastName}}, {{name}}, " +
    "{{phone}}, {{email}} (the conversation's contact) and {{agentName}} (the person replying) when it " +
    "inserts it; the API stores and returns it as written.",
});

export const CannedReplyJson = Type.Object(
  {
    id: Type.String({ description: "cr_…" }),
    shortcut: Type.String(),
    title: Type.String(),
    body: Type.String(),
    createdAt: Type.String({ description: "ISO 8601 UTC" }),
    updatedAt: Type.String({ description: "ISO 8601 UTC" }),
  },
  { description: "A canned reply: an account-wide snippet the reply box inserts by /shortcut" },
);

export const CreateCannedReplyBody = Type.Object({ shortcut: Shortcut, title: Title, body: Body });

export const UpdateCannedReplyBody = Type.Object(
  { shortcut: Type.Optional(Shortcut), title: Type.Optional(Title), body: Type.Optional(Body) },
  { minProperties: 1 },
);

export const CannedReplyParams = Type.Object({ cannedReplyId: Type.String({ maxLength: 64 }) });

export const DeleteCannedReplyResponse = Type.Object({
  success: Type.Literal(true),
  cannedReplyId: Type.String(),
});

export const CannedReplyList = Type.Object({
  data: Type.Array(CannedReplyJson, { description: "In shortcut order; at most 1,000" }),
});
