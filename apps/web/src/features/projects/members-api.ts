import {
  AcceptInvitationLinkResponseSchema,
  AddMemberResponseSchema,
  InvitationLinkSchema,
  PendingInvitationListSchema,
  type Role,
} from '@svc/protocol';
import { apiJson, apiVoid } from '../../lib/api';

const enc = encodeURIComponent;

export const pendingInvitationsKey = (projectId: string) => ['projects', projectId, 'pending-invitations'] as const;

/**
 * Invites by login or by an identity the invitee proves (`email:…`, `oauth2:…`, `sso:…`); the answer is
 * the same whether or not anyone has signed in with it.
 */
export const inviteMember = (projectId: string, body: { login: string; role: Role }) =>
  apiJson(`/projects/${enc(projectId)}/members`, AddMemberResponseSchema, { method: 'POST', json: body });
export const listPendingInvitations = (projectId: string) =>
  apiJson(`/projects/${enc(projectId)}/pending-invitations`, PendingInvitationListSchema);
export const cancelPendingInvitation = (projectId: string, login: string) =>
  apiVoid(`/projects/${enc(projectId)}/pending-invitations/${enc(login)}`, { method: 'DELETE' });

/** A single-use invitation link (owners); its token is in this answer only. */
export const createInvitationLink = (projectId: string, role: Role) =>
  apiJson(`/projects/${enc(projectId)}/invitation-links`, InvitationLinkSchema, { method: 'POST', json: { role } });
/** Joins the project of an invitation link as the signed-in user (404: invalid, used or expired; 409: a member). */
export const acceptInvitationLink = (token: string) =>
  apiJson('/invitations/accept-link', AcceptInvitationLinkResponseSchema, { method: 'POST', json: { token } });
