import { type Static, Type } from "typebox";

export const ExportQuery = Type.Object(
  {
    format: Type.Optional(
      Type.Union([Type.Literal("csv"), Type.Literal("jsonl")], {
        default: "csv",
        description: "csv (one row a contact, or a message) or jsonl (JSON Lines: one object a line)",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ExportQuery = Static<typeof ExportQuery>;

export const ExportFile = Type.String({ description: "text/csv or application/x-ndjson, streamed" });
