// What every mutation hook of the data layer shares: the request, the keys it makes stale, and
// the caller's own options (onSuccess, onSettled...) run after the invalidation is started.
import { useMutation, useQueryClient, type QueryKey, type UseMutationOptions } from '@tanstack/react-query';

export type MutationOptions<TData, TVars> = Omit<UseMutationOptions<TData, Error, TVars>, 'mutationFn'>;

/** A mutation that invalidates `stale(vars, data)` once it succeeded (`settled: true`: once it
 *  ended, failed or not, for writes of several requests where some may have gone through). */
export function useWriteMutation<TData, TVars>(
  mutationFn: (vars: TVars) => Promise<TData>,
  stale: (vars: TVars) => readonly QueryKey[],
  { onSuccess, onSettled, ...options }: MutationOptions<TData, TVars> = {},
  settled = false,
) {
  const qc = useQueryClient();
  const invalidate = (vars: TVars) => { for (const queryKey of stale(vars)) void qc.invalidateQueries({ queryKey }); };
  return useMutation<TData, Error, TVars>({
    mutationFn,
    ...options,
    onSuccess: (...args) => {
      if (!settled) invalidate(args[1]);
      return onSuccess?.(...args);
    },
    onSettled: (...args) => {
      if (settled) invalidate(args[2]);
      return onSettled?.(...args);
    },
  });
}
