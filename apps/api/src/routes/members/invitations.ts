import { Router } from 'express';
import type { Invitation, Role } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import { principalOf, requireAuth } from '../../auth/authenticate';
import type { Principal } from '../../auth/principal';
import { forbidden, notFound } from '../../domain/errors';
import { presentMember } from '../../wire/project';

/** Only a person acting for themselves (a session, or an api token not narrowed to one project). */
function inviteeOf(principal: Principal): string {
  if (principal.kind !== 'user' || principal.projectId !== null)
    throw forbidden('only a signed-in person answers their own invitations');
  return principal.user.id;
}

/**
 * `/invitations`: the caller's pending invitations to projects. `GET` lists them,
 * `POST /invitations/{project_id}/accept` makes the caller a member (201, the member), `DELETE
 * /invitations/{project_id}` declines (204). Someone else's or a missing invitation is 404.
 */
export function invitationsRouter(deps: AppDeps): Router {
  const router = Router();
  const { db } = deps;

  router.get('/invitations', requireAuth, async (req, res) => {
    const userId = inviteeOf(principalOf(req));
    const rows = await db.projectInvitation.findMany({
      where: { user_id: userId, project: { deleted_at: null } },
      include: { project: { select: { name: true } } },
      orderBy: [{ created_at: 'asc' }, { project_id: 'asc' }],
    });
    const inviters = await db.user.findMany({
      where: { id: { in: [...new Set(rows.map((r) => r.invited_by))] } },
      select: { id: true, login: true },
    });
    const loginOf = new Map(inviters.map((u) => [u.id, u.login]));
    res.json(
      rows.map(
        (row): Invitation => ({
          project_id: row.project_id,
          project_name: row.project.name,
          role: row.role as Role,
          invited_by: loginOf.get(row.invited_by) ?? null,
          created_at: row.created_at.toISOString(),
        }),
      ),
    );
  });

  router.post('/invitations/:projectId/accept', requireAuth, async (req, res) => {
    const userId = inviteeOf(principalOf(req));
    const projectId = req.params.projectId as string;
    const member = await db.$transaction(async (tx) => {
      const invitation = await tx.projectInvitation.findFirst({
        where: { project_id: projectId, user_id: userId, project: { deleted_at: null } },
      });
      if (!invitation) throw notFound('invitation not found');
      await tx.projectInvitation.delete({ where: { project_id_user_id: { project_id: projectId, user_id: userId } } });
      return tx.projectMember.upsert({
        where: { project_id_user_id: { project_id: projectId, user_id: userId } },
        create: { project_id: projectId, user_id: userId, role: invitation.role },
        update: {},
        include: { user: { select: { login: true, name: true } } },
      });
    });
    deps.events.publishProject(projectId, { change: 'members' });
    res.status(201).json(presentMember(member));
  });

  router.delete('/invitations/:projectId', requireAuth, async (req, res) => {
    const userId = inviteeOf(principalOf(req));
    const { count } = await db.projectInvitation.deleteMany({
      where: { project_id: req.params.projectId as string, user_id: userId },
    });
    if (count === 0) throw notFound('invitation not found');
    res.status(204).end();
  });

  return router;
}
