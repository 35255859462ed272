import { auditContextOf, recordAudit } from '../../audit/record';
import type { Db, Prisma, User } from '@svc/db';
import { type AcceptInvitationLinkResponse, type Invitation, type Role } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import type { OperationHandler, Handlers } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import type { Principal } from '../../auth/principal';
import { inviteeKeysOf } from '../../auth/pending-invitations';
import { conflict, forbidden, notFound } from '../../domain/errors';
import { MEMBER_USER, presentMember } from '../../wire/project';
import { tokenHash } from './links';

type Client = Db | Prisma.TransactionClient;
type Invitee = Pick<User, 'id' | 'provider' | 'provider_subject' | 'email' | 'login'>;

/** Only a person acting for themselves (a session, or an api token not narrowed to one project). */
function inviteeOf(principal: Principal): User {
  if (principal.kind !== 'user' || principal.projectId !== null)
    throw forbidden('only a signed-in person answers their own invitations');
  return principal.user;
}

interface OpenInvitation {
  project_id: string;
  project_name: string;
  role: string;
  invited_by: string;
  created_at: Date;
}

const byAge = (a: OpenInvitation, b: OpenInvitation) =>
  a.created_at.getTime() - b.created_at.getTime() || (a.project_id < b.project_id ? -1 : 1);

/**
 * The invitations the user may answer, one per live project they are not a member of: one made to
 * their account, else the oldest addressed to something they prove (their provider identity, verified
 * e-mail, or dev login). List, accept and decline all read it, so they agree.
 */
async function openInvitations(db: Client, user: Invitee, projectId?: string): Promise<OpenInvitation[]> {
  const inProject = projectId === undefined ? {} : { project_id: projectId };
  const project = { deleted_at: null, members: { none: { user_id: user.id } } };
  const withName = { project: { select: { name: true } } } as const;
  const keys = inviteeKeysOf(user);
  const [direct, addressed] = await Promise.all([
    db.projectInvitation.findMany({ where: { user_id: user.id, project, ...inProject }, include: withName }),
    keys.length === 0
      ? []
      : db.pendingInvitation.findMany({ where: { login: { in: keys }, project, ...inProject }, include: withName }),
  ]);
  const chosen = new Map<string, OpenInvitation>();
  const flat = (row: (typeof direct)[number] | (typeof addressed)[number]): OpenInvitation => ({
    ...row,
    project_name: row.project.name,
  });
  for (const row of [...addressed.map(flat)].sort(byAge))
    if (!chosen.has(row.project_id)) chosen.set(row.project_id, row);
  for (const row of direct) chosen.set(row.project_id, flat(row));
  return [...chosen.values()].sort(byAge);
}

/** Removes every invitation of the project the user could answer; the number removed. */
async function dropInvitations(tx: Client, user: Invitee, projectId: string): Promise<number> {
  const direct = await tx.projectInvitation.deleteMany({ where: { project_id: projectId, user_id: user.id } });
  const addressed = await tx.pendingInvitation.deleteMany({
    where: { project_id: projectId, login: { in: inviteeKeysOf(user) } },
  });
  return direct.count + addressed.count;
}

/**
 * `/invitations`: the caller's pending invitations to projects. `GET` lists them,
 * `POST /invitations/{project_id}/accept` makes the caller a member (201, the member), `DELETE
 * /invitations/{project_id}` declines (204). Someone else's or a missing invitation is 404.
 * `POST /invitations/accept-link` joins with an invitation link's token.
 */
export function invitationHandlers(
  deps: AppDeps,
): Handlers<'listInvitations' | 'acceptInvitationLink' | 'acceptInvitation' | 'declineInvitation'> {
  const { db } = deps;

  const listInvitations: OperationHandler<'listInvitations'> = async (req, res) => {
    const rows = await openInvitations(db, inviteeOf(principalOf(req)));
    const inviters = await db.user.findMany({
      where: { id: { in: [...new Set(rows.map((r) => r.invited_by))] } },
      select: { id: true, login: true },
    });
    const loginOf = new Map(inviters.map((u) => [u.id, u.login]));
    res.json(
      rows.map(
        (row): Invitation => ({
          project_id: row.project_id,
          project_name: row.project_name,
          role: row.role as Role,
          invited_by: loginOf.get(row.invited_by) ?? null,
          created_at: row.created_at.toISOString(),
        }),
      ),
    );
  };

  const acceptInvitationLink: OperationHandler<'acceptInvitationLink'> = async (req, res, input) => {
    const user = inviteeOf(principalOf(req));
    const { token } = input.body();
    const member = await db.$transaction(async (tx) => {
      const link = await tx.pendingInvitation.findFirst({
        where: { token_hash: tokenHash(token), expires_at: { gt: new Date() }, project: { deleted_at: null } },
      });
      if (!link) throw notFound('invitation not found');
      const key = { project_id_user_id: { project_id: link.project_id, user_id: user.id } };
      if (await tx.projectMember.findUnique({ where: key })) throw conflict('you are already a member of this project');
      // Single use: only the statement that deletes the row goes on (a second acceptance finds nothing).
      const { count } = await tx.pendingInvitation.deleteMany({ where: { token_hash: link.token_hash } });
      if (count === 0) throw notFound('invitation not found');
      await dropInvitations(tx, user, link.project_id);
      await recordAudit(tx, auditContextOf(req), {
        action: 'member.added',
        target: { type: 'user', id: user.id },
        projectId: link.project_id,
        detail: { role: link.role, via: 'link', invited_by: link.invited_by },
      });
      return tx.projectMember.create({
        data: { project_id: link.project_id, user_id: user.id, role: link.role },
        include: MEMBER_USER,
      });
    });
    deps.events.publishProject(member.project_id, { change: 'members' });
    const answer: AcceptInvitationLinkResponse = { ...presentMember(member), project_id: member.project_id };
    res.status(201).json(answer);
  };

  const acceptInvitation: OperationHandler<'acceptInvitation'> = async (req, res, input) => {
    const user = inviteeOf(principalOf(req));
    const projectId = input.params.project_id;
    const member = await db.$transaction(async (tx) => {
      const [invitation] = await openInvitations(tx, user, projectId);
      if (!invitation) throw notFound('invitation not found');
      await dropInvitations(tx, user, projectId);
      await recordAudit(tx, auditContextOf(req), {
        action: 'member.added',
        target: { type: 'user', id: user.id },
        projectId,
        detail: { role: invitation.role, via: 'invitation', invited_by: invitation.invited_by },
      });
      return tx.projectMember.upsert({
        where: { project_id_user_id: { project_id: projectId, user_id: user.id } },
        create: { project_id: projectId, user_id: user.id, role: invitation.role },
        update: {},
        include: MEMBER_USER,
      });
    });
    deps.events.publishProject(projectId, { change: 'members' });
    res.status(201).json(presentMember(member));
  };

  const declineInvitation: OperationHandler<'declineInvitation'> = async (req, res, input) => {
    const user = inviteeOf(principalOf(req));
    const projectId = input.params.project_id;
    if ((await openInvitations(db, user, projectId)).length === 0) throw notFound('invitation not found');
    await db.$transaction(async (tx) => {
      await dropInvitations(tx, user, projectId);
      await recordAudit(tx, auditContextOf(req), {
        action: 'invitation.declined',
        target: { type: 'user', id: user.id },
        projectId,
      });
    });
    res.status(204).end();
  };

  return { listInvitations, acceptInvitationLink, acceptInvitation, declineInvitation };
}
