import { useMutation, useQueryClient } from '@tanstack/react-query';

/** A mutation that, once it succeeded, hands its result to `onDone` and refreshes the list under `queryKey`. */
export function useRefreshingMutation<T, R>(
  queryKey: readonly unknown[],
  run: (arg: T) => Promise<R>,
  onDone?: (result: R) => void,
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: run,
    onSuccess: async (result) => {
      onDone?.(result);
      await queryClient.invalidateQueries({ queryKey });
    },
  });
}
