import { recordAudit, type AuditContext } from '../../audit/record';
import type { Db, Prisma } from '@svc/db';
import type { Role } from '@svc/protocol';
import { conflict, notFound } from '../../domain/errors';
import { backfillAppKeys, revokeProjectAppKeys } from '../../apps/app-link';

/**
 * Sets a member's role, or removes the member (`role` null), refusing to leave the project without an
 * owner (409). The project row is written first so concurrent changes to one project's members run
 * one after the other (a row lock on PostgreSQL, the write lock on SQLite) and the owner count holds.
 */
export async function changeMember(
  db: Db,
  projectId: string,
  userId: string,
  role: Role | null,
  audit: AuditContext,
): Promise<void> {
  await db.$transaction(async (tx) => {
    await tx.project.update({ where: { id: projectId }, data: { updated_at: new Date() } });
    const member = await tx.projectMember.findUnique({
      where: { project_id_user_id: { project_id: projectId, user_id: userId } },
    });
    if (!member) throw notFound('member not found');
    if (member.role === 'owner' && role !== 'owner') {
      const owners = await tx.projectMember.count({ where: { project_id: projectId, role: 'owner' } });
      if (owners <= 1) throw conflict(role ? 'the last owner cannot be demoted' : 'the last owner cannot be removed');
      await revokeOwnerInvitations(tx, projectId, userId);
    }
    if (role)
      await tx.projectMember.update({
        where: { project_id_user_id: { project_id: projectId, user_id: userId } },
        data: { role },
      });
    else {
      await tx.projectMember.delete({ where: { project_id_user_id: { project_id: projectId, user_id: userId } } });
      await revokeProjectAppKeys(tx, projectId); // the removed member's app links die with the membership
    }
    await recordAudit(tx, audit, {
      action: role ? 'member.role_changed' : 'member.removed',
      target: { type: 'user', id: userId },
      projectId,
      detail: role ? { from: member.role, to: role } : { role: member.role },
    });
  });
  if (!role) await backfillAppKeys(db);
}

/**
 * An owner invitation grants what its inviter could: those of an owner who stops being one (removed,
 * demoted, leaving) are revoked with the change, links included (issue 21, finding 9d).
 */
async function revokeOwnerInvitations(tx: Prisma.TransactionClient, projectId: string, userId: string): Promise<void> {
  const made = { project_id: projectId, invited_by: userId, role: 'owner' };
  await tx.projectInvitation.deleteMany({ where: made });
  await tx.pendingInvitation.deleteMany({ where: made });
}
