// Notices this process's writes to the accounts and api_keys tables, whoever wrote them, so caches of
// account data (the API key cache) can never serve a row older than a write this process made.
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from "kysely";

const WATCHED = /\b(accounts|api_keys)\b/i;
let generation = 0;

/** Moves whenever this process writes accounts or api_keys (at statement time, before commit). */
export function accountsGeneration(): number {
  return generation;
}

function targetOf(node: RootOperationNode): string | null {
  switch (node.kind) {
    case "UpdateQueryNode":
    case "DeleteQueryNode":
      return JSON.stringify(node.kind === "UpdateQueryNode" ? node.table : node.from);
    case "InsertQueryNode":
      return node.into?.table.identifier.name ?? null;
    case "RawNode": {
      const text = node.sqlFragments.join(" ");
      return /\b(update|insert|delete)\b/i.test(text) ? text : null;
    }
    default:
      return null;
  }
}

export class AccountWriteTracker implements KyselyPlugin {
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const target = targetOf(args.node);
    if (target !== null && WATCHED.test(target)) generation++;
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
