import { createContext, useContext } from 'react';
import type { User } from '@svc/protocol';

export const UserContext = createContext<User | null>(null);

/** The signed-in user; only used below the sign-in gate, where one always exists. */
export function useCurrentUser(): User {
  const user = useContext(UserContext);
  if (!user) throw new Error('useCurrentUser outside the signed-in part of the app');
  return user;
}
