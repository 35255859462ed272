import { Router } from 'express';
import type { Db, PendingInvitation as PendingRow } from '@svc/db';
import type { PendingInvitation, Role } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import { principalOf, requireAuth } from '../../auth/authenticate';
import { notFound } from '../../domain/errors';
import { foldName } from '../../auth/names';
import { authorizeProject } from '../../policies/access';

/** Pending invitations with the inviting owner's login. */
export async function presentPending(db: Db, rows: readonly PendingRow[]): Promise<PendingInvitation[]> {
  const inviters = await db.user.findMany({
    where: { id: { in: [...new Set(rows.map((r) => r.invited_by))] } },
    select: { id: true, login: true },
  });
  const loginOf = new Map(inviters.map((u) => [u.id, u.login]));
  return rows.map((row) => ({
    pending: true,
    login: row.login,
    role: row.role as Role,
    invited_by: loginOf.get(row.invited_by) ?? null,
    created_at: row.created_at.toISOString(),
  }));
}

/**
 * `/projects/{id}/pending-invitations`: invitations for logins nobody has signed in with yet. Owners
 * (and administrators) list them and cancel one by login; the invitee gets it at their first sign-in.
 */
export function pendingInvitationsRouter(deps: AppDeps): Router {
  const router = Router();
  const { db } = deps;

  router.get('/projects/:id/pending-invitations', requireAuth, async (req, res) => {
    const { project } = await authorizeProject(db, principalOf(req), req.params.id as string, 'members.manage');
    const rows = await db.pendingInvitation.findMany({
      where: { project_id: project.id },
      orderBy: [{ created_at: 'asc' }, { login: 'asc' }],
    });
    res.json(await presentPending(db, rows));
  });

  router.delete('/projects/:id/pending-invitations/:login', requireAuth, async (req, res) => {
    const { project } = await authorizeProject(db, principalOf(req), req.params.id as string, 'members.manage');
    const login = foldName(req.params.login as string);
    const { count } = await db.pendingInvitation.deleteMany({ where: { project_id: project.id, login } });
    if (count === 0) throw notFound('pending invitation not found');
    deps.events.publishProject(project.id, { change: 'members' });
    res.status(204).end();
  });

  return router;
}
