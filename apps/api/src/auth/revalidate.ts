import type { AppDeps } from '../deps';
import { principalFromClaims } from './authenticate';
import type { Principal } from './principal';

/**
 * Why a long-lived connection's credential (a browser socket, an event stream) stopped being valid:
 * expired, revoked, or its user deleted or (for a project-narrowed token) out of the project. null: still
 * valid. A database failure is thrown, not reported as a problem: the caller decides at the next check.
 */
export async function credentialProblem(
  principal: Principal,
  deps: Pick<AppDeps, 'tokens' | 'db' | 'config'>,
): Promise<string | null> {
  const { claims } = principal;
  if (claims.exp * 1000 <= Date.now()) return 'session expired';
  if (await deps.tokens.isRevoked(claims.jti)) return 'token revoked';
  if (!(await principalFromClaims(claims, deps.db, deps.config.adminUsers, deps.tokens)))
    return 'the signed-in user no longer exists or lost access';
  return null;
}
