// Shared OpenAPI response schemas, so every route documents its errors the same way.
import { Type } from "typebox";

export const StructuredError = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: "UPPER_SNAKE error code" }),
      message: Type.String(),
      requestId: Type.Optional(Type.String()),
    }),
  },
  { description: "Structured error" },
);

export const SimpleError = Type.Object({ error: Type.String() }, { description: "Simple error" });

/** `errorResponses(400, 401, 404)` → response schemas for those statuses, structured form. */
export function errorResponses(...statuses: number[]): Record<number, typeof StructuredError> {
  return Object.fromEntries(statuses.map((s) => [s, StructuredError]));
}

export function simpleErrorResponses(...statuses: number[]): Record<number, typeof SimpleError> {
  return Object.fromEntries(statuses.map((s) => [s, SimpleError]));
}
