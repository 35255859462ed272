import { AuthProviderResponseSchema, UserSchema, type User } from '@svc/protocol';
import { apiJson, apiVoid, isUnauthenticated } from '../../lib/api';

export const fetchAuthProvider = () => apiJson('/auth/provider', AuthProviderResponseSchema);

/** The signed-in user, or null when nobody is signed in. */
export async function fetchMe(): Promise<User | null> {
  try {
    return await apiJson('/me', UserSchema);
  } catch (error) {
    if (isUnauthenticated(error)) return null;
    throw error;
  }
}

/** Dev provider sign-in by user name (JSON answer instead of the redirect a plain form gets). */
export const devLogin = (login: string) =>
  apiJson('/svc/auth/dev-login', UserSchema, { method: 'POST', json: { login } });

export const logout = () => apiVoid('/svc/auth/logout', { method: 'POST' });
