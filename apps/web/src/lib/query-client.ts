import { backoffDelay } from '@svc/client';
import { QueryCache, QueryClient } from '@tanstack/react-query';
import { ApiError, isUnauthenticated } from './api';
import { queryKeys } from './query-keys';

/** Retries only what may succeed next time: network failures and 5xx, twice. */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (failureCount >= 2) return false;
  if (!(error instanceof ApiError)) return true;
  return error.status === 0 || error.status >= 500;
}

/** Wait before retry `attempt` (0-based): the same equal-jitter back-off as the live socket's reconnects. */
export const retryDelay = (attempt: number): number => backoffDelay(attempt, { baseMs: 1_000, maxMs: 30_000 });

export function createQueryClient(): QueryClient {
  const client: QueryClient = new QueryClient({
    // A session that expired mid-use sends the person back to sign-in.
    queryCache: new QueryCache({
      onError: (error) => {
        if (isUnauthenticated(error)) client.setQueryData(queryKeys.me, null);
      },
    }),
    defaultOptions: { queries: { retry: shouldRetry, retryDelay, staleTime: 5_000 } },
  });
  return client;
}
