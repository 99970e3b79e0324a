import type { Module } from "../../context.ts";
import { AppError } from "../../platform/errors.ts";
import { credit } from "./ledger.ts";
import { creditRoutes } from "./routes.ts";
import { adjustCredits } from "./service.ts";

export const creditsModule: Module = {
  name: "credits",
  routes: creditRoutes,
  // An operator's opening credits are a ledger entry like any other, so the history sums to the balance.
  async onAccountCreated(trx, account) {
    if (account.initialCredits > 0) {
      await credit(trx, account.accountId, {
        amount: account.initialCredits,
        kind: "adjustment",
        description: "Initial credits",
      });
    }
  },
  commands: {
    "credits add": {
      summary: "--email E --amount N [--description D]   (operator adjustment; a negative N takes credits)",
      options: {
        email: { type: "string" },
        amount: { type: "string" },
        description: { type: "string" },
      },
      async run(values, { db }) {
        const { email, amount, description } = values;
        if (typeof email !== "string" || email.trim() === "")
          throw new AppError("VALIDATION_ERROR", "--email is required");
        if (typeof amount !== "string") throw new AppError("INVALID_AMOUNT", "--amount is required");
        return adjustCredits(db, email, amount, typeof description === "string" ? description : null);
      },
    },
  },
};
