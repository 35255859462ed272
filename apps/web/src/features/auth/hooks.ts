import { useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../lib/query-keys';
import { fetchAuthProvider } from './api';

/** The sign-in provider (dev, OAuth 2.0 or SSO); it does not change while the app runs. */
export const useAuthProvider = () =>
  useQuery({ queryKey: queryKeys.authProvider, queryFn: fetchAuthProvider, staleTime: Infinity });
