// What every mutation hook of the data layer shares: the request, the keys it makes stale, and
// the caller's own options (onSuccess, onSettled...) run after the invalidation is started.
import { useMutation, useQueryClient, type QueryKey, type UseMutationOptions } from '@tanstack/react-query';

export type MutationOptions<TData, TVars> = Omit<UseMutationOptions<TData, Error, TVars>, 'mutationFn'>;

/** How a mutation makes its keys stale. */
export interface Staleness {
  /** Once it ended, failed or not (writes of several requests, some of which may have gone
   *  through), instead of once it succeeded. */
  settled?: boolean;
  /** The caller's onSuccess runs once the stale queries are fetched again (it shows what they
   *  hold), instead of at once. */
  refetchFirst?: boolean;
}

/** A mutation that invalidates `stale(vars)` once it succeeded (see Staleness). */
export function useWriteMutation<TData, TVars>(
  mutationFn: (vars: TVars) => Promise<TData>,
  stale: (vars: TVars) => readonly QueryKey[],
  { onSuccess, onSettled, ...options }: MutationOptions<TData, TVars> = {},
  { settled = false, refetchFirst = false }: Staleness = {},
) {
  const qc = useQueryClient();
  const invalidate = (vars: TVars) => Promise.all(stale(vars).map((queryKey) => qc.invalidateQueries({ queryKey })));
  return useMutation<TData, Error, TVars>({
    mutationFn,
    ...options,
    onSuccess: async (...args) => {
      if (!settled) {
        const done = invalidate(args[1]);
        if (refetchFirst) await done;
      }
      return onSuccess?.(...args);
    },
    onSettled: (...args) => {
      if (settled) void invalidate(args[2]);
      return onSettled?.(...args);
    },
  });
}
