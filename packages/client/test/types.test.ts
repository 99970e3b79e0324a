// The method types come from the generated document (checked by `npm run typecheck`): never `never`
// or `any`, and wrong bodies do not compile.
import { describe, expectTypeOf, it } from "vitest";
import type { Parley, QueryParams, RequestBody, ResponseBody } from "../src/index.ts";

describe("types from the OpenAPI document", () => {
  it("bodies, queries and answers are the document's", () => {
    expectTypeOf<ResponseBody<"createContact">>().not.toBeNever();
    expectTypeOf<ResponseBody<"createContact">>().not.toBeAny();
    expectTypeOf<ResponseBody<"createContact">>().toHaveProperty("id").toEqualTypeOf<string>();
    expectTypeOf<Awaited<ReturnType<Parley["contacts"]["lookup"]>>>()
      .toHaveProperty("contactId")
      .toEqualTypeOf<string>();
    expectTypeOf<Awaited<ReturnType<Parley["contacts"]["list"]>>>().toHaveProperty("nextCursor");
    expectTypeOf<ResponseBody<"grantSubaccountCredits">>()
      .toHaveProperty("new_balance")
      .toEqualTypeOf<number>();
    expectTypeOf<ResponseBody<"receiveIncomingMessage">>()
      .toHaveProperty("messageId")
      .toEqualTypeOf<string>();
    expectTypeOf<RequestBody<"grantSubaccountCredits">>().toHaveProperty("amount").toEqualTypeOf<number>();
    expectTypeOf<RequestBody<"receiveIncomingMessage">>().toHaveProperty("customData");
    expectTypeOf<QueryParams<"listConversations">>().toHaveProperty("cursor");
    expectTypeOf<Parley["contacts"]["get"]>().returns.resolves.toHaveProperty("phone");
    // @ts-expect-error amount is a number
    expectTypeOf<RequestBody<"grantSubaccountCredits">>().toMatchTypeOf<{ email: string; amount: string }>();
  });
});
