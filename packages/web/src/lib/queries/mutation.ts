// The shape most of the app's mutations share: call the API, then refresh the queries that show what
// changed and say so in a notification; a failure is a notification where no form shows it.
import { type QueryKey, useMutation, useQueryClient } from "@tanstack/react-query";
import { errorMessage } from "../api.ts";
import { notify } from "../notify.ts";

/** A value, or one worked out from the mutation's answer and its variables. */
type FromResult<T, Data, Vars> = T | ((data: Data, vars: Vars) => T);

export interface AppMutationOptions<Data, Vars> {
  mutationFn: (vars: Vars) => Promise<Data>;
  /** The notification once it succeeded (none when it works out to undefined). */
  notice?: FromResult<string | undefined, Data, Vars>;
  /** The query whose cached data the answer replaces (the server answers the saved state). */
  replaces?: FromResult<QueryKey, Data, Vars>;
  /** The queries (key prefixes) to refetch once it succeeded. */
  invalidates?: FromResult<QueryKey[], Data, Vars>;
  /** A failure becomes an error notification (switches, row buttons: nothing else would show it). */
  notifyError?: boolean;
  /** Anything else to do once it succeeded (after the notice and the refreshes). */
  onSuccess?: (data: Data, vars: Vars) => void;
}

function resolve<T, Data, Vars>(value: FromResult<T, Data, Vars>, data: Data, vars: Vars): T {
  return typeof value === "function" ? (value as (data: Data, vars: Vars) => T)(data, vars) : value;
}

export function useAppMutation<Data = unknown, Vars = void>(options: AppMutationOptions<Data, Vars>) {
  const client = useQueryClient();
  const { mutationFn, notice, replaces, invalidates, notifyError, onSuccess } = options;
  return useMutation({
    mutationFn,
    onSuccess: (data: Data, vars: Vars) => {
      const message = notice === undefined ? undefined : resolve(notice, data, vars);
      if (message !== undefined) notify(message);
      if (replaces !== undefined) client.setQueryData(resolve(replaces, data, vars), data);
      for (const queryKey of invalidates === undefined ? [] : resolve(invalidates, data, vars)) {
        void client.invalidateQueries({ queryKey });
      }
      onSuccess?.(data, vars);
    },
    onError: notifyError ? (err: Error) => notify(errorMessage(err), "error") : undefined,
  });
}
