import type { QueryClient } from '@tanstack/react-query';
import type { User } from '@svc/protocol';
import { queryKeys } from '../../lib/query-keys';

/**
 * Switches the app to another user (or to nobody): everything cached for the previous user is
 * dropped, and `me` is set in place, so the sign-in gate (which observes it) re-renders at once.
 */
export function switchUser(queryClient: QueryClient, user: User | null): void {
  queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== queryKeys.me[0] });
  queryClient.setQueryData(queryKeys.me, user);
}
