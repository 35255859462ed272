import type { User } from '@svc/db';
import type { TokenClaims } from './tokens';
import type { AdminList } from './admins';

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
  | {
      kind: 'worker';
      claims: TokenClaims;
      /** the workers registered with this token: it reaches only the workflows dispatched to them */
      workerIds: readonly string[];
    }
  | { kind: 'job'; projectId: string; workflowId: string; claims: TokenClaims };

/** Administrators are matched by provider identity or verified e-mail, never by login (see AdminList). */
export function isAdminUser(
  user: Pick<User, 'provider' | 'provider_subject' | 'email'>,
  adminUsers: AdminList,
): boolean {
  return adminUsers.has(user);
}
