import type { User } from '@svc/db';
import type { TokenClaims } from './tokens';

/** Who is calling: a person (browser session or CI `api` token), a worker, or one workflow's job. */
export type Principal =
  | {
      kind: 'user';
      user: User;
      isAdmin: boolean;
      scope: 'session' | 'api';
      projectId: string | null;
      claims: TokenClaims;
    }
  | { kind: 'worker'; claims: TokenClaims }
  | { kind: 'job'; projectId: string; workflowId: string; claims: TokenClaims };

export function isAdminUser(user: Pick<User, 'login' | 'email'>, adminUsers: Set<string>): boolean {
  return adminUsers.has(user.login.toLowerCase()) || (!!user.email && adminUsers.has(user.email.toLowerCase()));
}
