// Cursor pagination shared by every list endpoint: ordered by the (sortable) id, the cursor is the
// last id of the page, opaque to clients. Response: {data, hasMore, nextCursor}.

import type { TSchema } from "typebox";
import { Type } from "typebox";
import { AppError } from "./errors.ts";

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

export const PageQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: "nextCursor of the previous page" })),
});

export function pageOf<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    hasMore: Type.Boolean(),
    nextCursor: Type.Union([Type.String(), Type.Null()]),
  });
}

export function encodeCursor(lastId: string): string {
  return Buffer.from(lastId, "utf8").toString("base64url");
}

/** The id after which the page starts, or null for the first page. */
export function decodeCursor(cursor: string | undefined): string | null {
  if (cursor === undefined || cursor === "") return null;
  const id = Buffer.from(cursor, "base64url").toString("utf8");
  if (!/^[a-z]{2,4}_[0-9a-z]{26}$/.test(id)) throw new AppError("INVALID_CURSOR", "cursor is not valid");
  return id;
}

/**
 * Builds a page from rows fetched with `limit + 1` (the extra row only tells whether more exist).
 * `idOf` gives the sort key that the next page starts after.
 */
export function toPage<R, T>(rows: R[], limit: number, idOf: (r: R) => string, view: (r: R) => T) {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    data: pageRows.map(view),
    hasMore,
    nextCursor: hasMore && last !== undefined ? encodeCursor(idOf(last)) : null,
  };
}
