import type { ApiToken as ApiTokenRow, Db } from '@svc/db';
import type { ApiToken } from '@svc/protocol';
import type { IssuedToken, TokenService } from '../auth/tokens';
import type { Principal } from '../auth/principal';
import { canGlobally } from '../policies/rules';
import { notFound } from '../domain/errors';
import { recordAudit, type AuditContext } from '../audit/record';

type UserPrincipal = Extract<Principal, { kind: 'user' }>;

/** Records a minted api or worker token (never the token itself), so its owner can list and revoke it. */
export async function recordToken(
  db: Db,
  userId: string,
  name: string,
  issued: IssuedToken,
  audit: AuditContext,
): Promise<void> {
  const projectId = issued.claims.project_id ?? null;
  await db.$transaction(async (tx) => {
    await tx.apiToken.create({
      data: {
        jti: issued.claims.jti,
        user_id: userId,
        name,
        scope: issued.claims.scope,
        project_id: projectId,
        expires_at: issued.expiresAt,
      },
    });
    await recordAudit(tx, audit, {
      action: 'token.minted',
      target: { type: 'token', id: issued.claims.jti },
      projectId,
      detail: { scope: issued.claims.scope, name, expires_at: issued.expiresAt.toISOString() },
    });
  });
}

export function presentToken(row: ApiTokenRow, userLogin?: string): ApiToken {
  return {
    id: row.jti,
    name: row.name,
    scope: row.scope === 'worker' ? 'worker' : 'api',
    project_id: row.project_id,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
    revoked_at: row.revoked_at?.toISOString() ?? null,
    ...(userLogin !== undefined ? { user_login: userLogin } : {}),
  };
}

/** The caller's recorded tokens, or everyone's (with the owner's login) for an administrator asking for all. */
export async function listTokens(db: Db, principal: UserPrincipal, all: boolean): Promise<ApiToken[]> {
  const order = [{ created_at: 'desc' as const }, { jti: 'asc' as const }];
  if (!all) {
    const rows = await db.apiToken.findMany({ where: { user_id: principal.user.id }, orderBy: order });
    return rows.map((row) => presentToken(row));
  }
  const rows = await db.apiToken.findMany({ orderBy: order });
  const users = await db.user.findMany({
    where: { id: { in: [...new Set(rows.map((r) => r.user_id))] } },
    select: { id: true, login: true },
  });
  const loginOf = new Map(users.map((u) => [u.id, u.login]));
  return rows.map((row) => presentToken(row, loginOf.get(row.user_id) ?? ''));
}

/**
 * Revokes a recorded token through the service's revocation list (refused on its next use here, and on
 * the other replicas as soon as the cluster bus brings it). Someone else's token is 404 unless the
 * caller may manage everyone's; revoking twice is fine.
 */
export async function revokeRecordedToken(
  db: Db,
  tokens: TokenService,
  principal: UserPrincipal,
  jti: string,
  audit: AuditContext,
): Promise<void> {
  const row = await db.apiToken.findUnique({ where: { jti } });
  if (!row || (row.user_id !== principal.user.id && !canGlobally(principal, 'tokens.manage_any')))
    throw notFound('token not found');
  await tokens.revoke({ jti: row.jti, exp: Math.floor(row.expires_at.getTime() / 1000) });
  if (row.revoked_at) return;
  // Exactly one row for the revocation that took effect; a repeated revoke changes nothing and writes none.
  await db.$transaction(async (tx) => {
    const { count } = await tx.apiToken.updateMany({
      where: { jti, revoked_at: null },
      data: { revoked_at: new Date() },
    });
    if (count === 0) return;
    await recordAudit(tx, audit, {
      action: 'token.revoked',
      target: { type: 'token', id: row.jti },
      projectId: row.project_id,
      detail: { scope: row.scope, name: row.name, owner_id: row.user_id },
    });
  });
}
