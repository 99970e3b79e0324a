// Private notes' schemas (the web app's inbox: /app/api/conversations/:conversationId/notes).
import { Type } from "typebox";

export const NOTE_MAX_LENGTH = 5000;

export const NoteBody = Type.Object({
  body: Type.String({
    minLength: 1,
    maxLength: NOTE_MAX_LENGTH,
    description:
      "The note, 1 to 5,000 characters once trimmed. @ followed by a teammate's name (as in the team " +
      "list, any case) or e-mail address mentions them: they are notified (note.mentioned).",
  }),
});

const NotePerson = Type.Object({
  id: Type.String({ description: "usr_…" }),
  name: Type.Union([Type.String(), Type.Null()]),
  email: Type.Union([Type.String(), Type.Null()], {
    description: "null when the teammate was removed from the account since",
  }),
});

export const NoteJson = Type.Object(
  {
    id: Type.String({ description: "nt_…" }),
    conversationId: Type.String(),
    body: Type.String(),
    author: NotePerson,
    mentions: Type.Array(NotePerson, {
      description: "The teammates the note mentions (resolved when it was written), in order",
    }),
    createdAt: Type.String(),
  },
  { description: "A private note: seen by the team only, never sent to the customer" },
);

export const NoteList = Type.Object({
  data: Type.Array(NoteJson, { description: "Oldest first; the last 500" }),
});
