import type { CliValues, Module } from "../../context.ts";
import { AppError } from "../../platform/errors.ts";
import { requireAccountByEmail } from "../accounts/service.ts";
import { removeContactFromAllLists } from "./repo.ts";
import { listRoutes } from "./routes.ts";
import { createList } from "./service.ts";

function required(values: CliValues, name: string): string {
  const v = values[name];
  if (typeof v !== "string" || v.trim() === "")
    throw new AppError("VALIDATION_ERROR", `--${name} is required`);
  return v;
}

export const listsModule: Module = {
  name: "lists",
  routes: listRoutes,
  async onContactErased(trx, { accountId, contactId }) {
    await removeContactFromAllLists(trx, accountId, contactId);
  },
  commands: {
    "list create": {
      summary: "--email E --name N   (prints the new list's id)",
      options: { email: { type: "string" }, name: { type: "string" } },
      async run(values, { db }) {
        const account = await requireAccountByEmail(db, required(values, "email"));
        const list = await createList(db, account.id, required(values, "name"));
        return { listId: list.id };
      },
    },
  },
};
