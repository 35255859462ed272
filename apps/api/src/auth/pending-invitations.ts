import type { Db, User } from '@svc/db';

/**
 * Turns the pending invitations for a user's login (made before anyone had signed in with it) into
 * ordinary invitations the user accepts or declines (`/invitations`). Runs at every sign-in, so an
 * invitation made while the user's first sign-in was under way is not left behind. An invitation the
 * user already has keeps its role; an existing membership makes the pending one moot.
 */
export async function claimPendingInvitations(db: Db, user: Pick<User, 'id' | 'login'>): Promise<void> {
  const pending = await db.pendingInvitation.findMany({ where: { login: user.login } });
  if (pending.length === 0) return;
  await db.$transaction(async (tx) => {
    for (const invitation of pending) {
      const member = await tx.projectMember.findUnique({
        where: { project_id_user_id: { project_id: invitation.project_id, user_id: user.id } },
      });
      if (!member)
        await tx.projectInvitation.upsert({
          where: { project_id_user_id: { project_id: invitation.project_id, user_id: user.id } },
          create: {
            project_id: invitation.project_id,
            user_id: user.id,
            role: invitation.role,
            invited_by: invitation.invited_by,
            created_at: invitation.created_at,
          },
          update: {},
        });
      await tx.pendingInvitation.deleteMany({
        where: { project_id: invitation.project_id, login: invitation.login },
      });
    }
  });
}
