import { auditContextOf, recordAudit } from '../../audit/record';
import type { Db } from '@svc/db';
import type { PendingInvitation, Role } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import type { OperationHandler, Handlers } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { notFound } from '../../domain/errors';
import { invitationKey } from '../../auth/pending-invitations';
import { authorizeProject } from '../../policies/access';

/** What both kinds of invitation (for a signed-in user, or for a login nobody has used) have in common. */
export interface InvitationRow {
  login: string;
  role: string;
  invited_by: string;
  created_at: Date;
}

/**
 * Invitations on the wire, with the inviting owner's login. Both kinds look the same so that an owner
 * cannot tell which logins exist (docs/security.md, "Member consent").
 */
export async function presentInvitations(db: Db, rows: readonly InvitationRow[]): Promise<PendingInvitation[]> {
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

/** Every invitation of the project nobody has accepted yet, of both kinds (expired links left out), by created_at then login. */
async function outstandingInvitations(db: Db, projectId: string): Promise<InvitationRow[]> {
  const [pending, invited] = await Promise.all([
    db.pendingInvitation.findMany({
      where: { project_id: projectId, OR: [{ expires_at: null }, { expires_at: { gt: new Date() } }] },
    }),
    db.projectInvitation.findMany({ where: { project_id: projectId }, include: { user: { select: { login: true } } } }),
  ]);
  const rows: InvitationRow[] = [...pending, ...invited.map((row) => ({ ...row, login: row.user.login }))];
  return rows.sort(
    (a, b) => a.created_at.getTime() - b.created_at.getTime() || (a.login < b.login ? -1 : a.login > b.login ? 1 : 0),
  );
}

/**
 * `/projects/{id}/pending-invitations`: the project's outstanding invitations, whether or not anyone has
 * signed in with the login (and live invitation links). Owners (and administrators) list them and cancel
 * one by the name it is listed under.
 */
export function pendingInvitationHandlers(
  deps: AppDeps,
): Handlers<'listPendingInvitations' | 'cancelPendingInvitation'> {
  const { db } = deps;

  const listPendingInvitations: OperationHandler<'listPendingInvitations'> = async (req, res, input) => {
    const { project } = await authorizeProject(db, principalOf(req), input.params.id, 'members.manage');
    res.json(await presentInvitations(db, await outstandingInvitations(db, project.id)));
  };

  const cancelPendingInvitation: OperationHandler<'cancelPendingInvitation'> = async (req, res, input) => {
    const { project } = await authorizeProject(db, principalOf(req), input.params.id, 'members.manage');
    const login = invitationKey(input.params.login, 'path.login');
    const audit = auditContextOf(req);
    await db.$transaction(async (tx) => {
      const pending = await tx.pendingInvitation.deleteMany({ where: { project_id: project.id, login } });
      const invited = await tx.projectInvitation.deleteMany({ where: { project_id: project.id, user: { login } } });
      if (pending.count + invited.count === 0) throw notFound('invitation not found');
      await recordAudit(tx, audit, {
        action: 'invitation.cancelled',
        target: { type: 'invitee', id: login },
        projectId: project.id,
      });
    });
    deps.events.publishProject(project.id, { change: 'members' });
    res.status(204).end();
  };

  return { listPendingInvitations, cancelPendingInvitation };
}
