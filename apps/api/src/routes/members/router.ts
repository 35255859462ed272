import { auditContextOf, recordAudit } from '../../audit/record';
import type { AppDeps } from '../../deps';
import type { OperationHandler, Handlers } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { conflict } from '../../domain/errors';
import { authorizeProject } from '../../policies/access';
import { MEMBER_USER, presentMember } from '../../wire/project';
import { changeMember } from './change';
import { presentInvitations, type InvitationRow } from './pending';
import { parseInvitee } from '../../auth/pending-invitations';

/** `/projects/{id}/members` (and its invitation links): anyone in the project reads, owners (and administrators) manage. */
export function memberHandlers(
  deps: AppDeps,
): Handlers<'listMembers' | 'inviteMember' | 'updateMember' | 'removeMember'> {
  const { db } = deps;

  const listMembers: OperationHandler<'listMembers'> = async (req, res, input) => {
    const { project } = await authorizeProject(db, principalOf(req), input.params.id, 'members.read');
    const members = await db.projectMember.findMany({
      where: { project_id: project.id },
      include: MEMBER_USER,
      orderBy: [{ created_at: 'asc' }, { user_id: 'asc' }],
    });
    res.json(members.map(presentMember));
  };

  // Adding a member sends an invitation; the invitee becomes a member only by accepting it. An existing
  // login is invited directly; anything else (an identity the invitee proves at sign-in, or a login
  // nobody has used) gets a pending invitation under its key, answered by whoever proves that key
  // (invitations.ts). Both answer the same, so an owner (anyone can own a project) cannot tell which
  // logins exist. An identity is never looked up: its answer is the same by construction.
  const inviteMember: OperationHandler<'inviteMember'> = async (req, res, input) => {
    const principal = principalOf(req);
    const { project } = await authorizeProject(db, principal, input.params.id, 'members.manage');
    const body = input.body();
    const invitee = parseInvitee(body.login);
    const invitedBy = principal.kind === 'user' ? principal.user.id : '';
    const user = invitee.kind === 'login' ? await db.user.findUnique({ where: { login: invitee.key } }) : null;
    const audit = auditContextOf(req);
    const invitation: InvitationRow = await db.$transaction(async (tx) => {
      let made: InvitationRow;
      if (!user) {
        made = await tx.pendingInvitation.upsert({
          where: { project_id_login: { project_id: project.id, login: invitee.key } },
          create: { project_id: project.id, login: invitee.key, role: body.role, invited_by: invitedBy },
          update: { role: body.role, invited_by: invitedBy },
        });
      } else {
        const existing = await tx.projectMember.findUnique({
          where: { project_id_user_id: { project_id: project.id, user_id: user.id } },
        });
        // Members are listed to whoever may manage them: saying so reveals nothing new.
        if (existing) throw conflict(`${user.login} is already a member of this project`);
        const row = await tx.projectInvitation.upsert({
          where: { project_id_user_id: { project_id: project.id, user_id: user.id } },
          create: { project_id: project.id, user_id: user.id, role: body.role, invited_by: invitedBy },
          update: { role: body.role, invited_by: invitedBy },
        });
        // One outstanding invitation per login: a pending one made before this login was taken goes.
        await tx.pendingInvitation.deleteMany({ where: { project_id: project.id, login: user.login } });
        made = { ...row, login: user.login };
      }
      await recordAudit(tx, audit, {
        action: 'invitation.created',
        target: user ? { type: 'user', id: user.id } : { type: 'invitee', id: invitee.key },
        projectId: project.id,
        detail: { invitee: body.login, role: body.role },
      });
      return made;
    });
    deps.events.publishProject(project.id, { change: 'members' });
    res.status(202).json((await presentInvitations(db, [invitation]))[0]);
  };

  const updateMember: OperationHandler<'updateMember'> = async (req, res, input) => {
    const { project } = await authorizeProject(db, principalOf(req), input.params.id, 'members.manage');
    const { role } = input.body();
    await changeMember(db, project.id, input.params.user_id, role, auditContextOf(req));
    const member = await db.projectMember.findUniqueOrThrow({
      where: { project_id_user_id: { project_id: project.id, user_id: input.params.user_id } },
      include: MEMBER_USER,
    });
    deps.events.publishProject(project.id, { change: 'members' });
    res.json(presentMember(member));
  };

  const removeMember: OperationHandler<'removeMember'> = async (req, res, input) => {
    const { project } = await authorizeProject(db, principalOf(req), input.params.id, 'members.manage');
    await changeMember(db, project.id, input.params.user_id, null, auditContextOf(req));
    deps.events.publishProject(project.id, { change: 'members' });
    res.status(204).end();
  };

  return { listMembers, inviteMember, updateMember, removeMember };
}
