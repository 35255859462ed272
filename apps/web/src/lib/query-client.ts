import { backoffDelay } from '@svc/client';
import { QueryCache, QueryClient } from '@tanstack/react-query';
import { ApiError, isUnauthenticated } from './api';
import { queryKeys } from './query-keys';
import { RETRY_MAX_MS } from './ws';

/** Whether an error may go away by itself: the server was not reached (status 0) or answered 5xx. */
export function isTransient(error: unknown): boolean {
  if (!(error instanceof ApiError)) return true;
  return error.status === 0 || error.status >= 500;
}

/** Retries only what may succeed next time: network failures and 5xx, twice. */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  return failureCount < 2 && isTransient(error);
}

/** Wait before retry `attempt` (0-based): the same equal-jitter back-off as the live socket's reconnects. */
export const retryDelay = (attempt: number): number => backoffDelay(attempt, { baseMs: 1_000, maxMs: 30_000 });

/**
 * The session check (`GET /me`) retries a transient failure for as long as it lasts, backing off to at
 * most the live socket's longest wait: an outage pauses the app instead of ending it (decision 0070).
 */
export const sessionRetry = {
  retry: (_failureCount: number, error: unknown) => isTransient(error),
  retryDelay: (attempt: number) => backoffDelay(attempt, { baseMs: 1_000, maxMs: RETRY_MAX_MS }),
};

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
