import { auditContextOf, recordAudit } from '../../audit/record';
import { createHash, randomBytes } from 'node:crypto';
import { INVITATION_LINK_PREFIX, type InvitationLink } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import type { OperationHandler, Handlers } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { authorizeProject } from '../../policies/access';
import { presentInvitations } from './pending';

/** How long an invitation link works (docs/decisions/0031-security-third-hostile-pass.md). */
export const INVITATION_LINK_TTL_MS = 7 * 24 * 3600 * 1000;

/** What the server keeps of a link's token: its SHA-256, so a database reader cannot use the link. */
export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * `POST /projects/{id}/invitation-links` (owners): a single-use invitation that whoever holds the token
 * accepts (`POST /invitations/accept-link`), for someone whose identity the owner cannot name. The token
 * (256 random bits) is answered once; the project lists the link as `link:<id>` and cancels it by that name.
 */
export function invitationLinkHandlers(deps: AppDeps): Handlers<'createInvitationLink'> {
  const { db } = deps;

  const createInvitationLink: OperationHandler<'createInvitationLink'> = async (req, res, input) => {
    const principal = principalOf(req);
    const { project } = await authorizeProject(db, principal, input.params.id, 'members.manage');
    const { role } = input.body();
    const token = randomBytes(32).toString('base64url');
    const now = Date.now();
    await db.pendingInvitation.deleteMany({ where: { project_id: project.id, expires_at: { lte: new Date(now) } } });
    const row = await db.$transaction(async (tx) => {
      const created = await tx.pendingInvitation.create({
        data: {
          project_id: project.id,
          login: `${INVITATION_LINK_PREFIX}${randomBytes(8).toString('hex')}`,
          role,
          invited_by: principal.kind === 'user' ? principal.user.id : '',
          token_hash: tokenHash(token),
          expires_at: new Date(now + INVITATION_LINK_TTL_MS),
        },
      });
      // The link's key, never its token.
      await recordAudit(tx, auditContextOf(req), {
        action: 'invitation.link_created',
        target: { type: 'invitee', id: created.login },
        projectId: project.id,
        detail: { role, expires_at: created.expires_at?.toISOString() ?? null },
      });
      return created;
    });
    deps.events.publishProject(project.id, { change: 'members' });
    const [listed] = await presentInvitations(db, [row]);
    const answer: InvitationLink = { ...listed!, token, expires_at: row.expires_at!.toISOString() };
    res.status(201).json(answer);
  };

  return { createInvitationLink };
}
