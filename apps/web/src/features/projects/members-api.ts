import { AddMemberResponseSchema, PendingInvitationListSchema, type Role } from '@svc/protocol';
import { apiJson, apiVoid } from '../../lib/api';

const enc = encodeURIComponent;

export const pendingInvitationsKey = (projectId: string) => ['projects', projectId, 'pending-invitations'] as const;

/** Invites by login; the answer is the same whether or not anyone has signed in with it. */
export const inviteMember = (projectId: string, body: { login: string; role: Role }) =>
  apiJson(`/projects/${enc(projectId)}/members`, AddMemberResponseSchema, { method: 'POST', json: body });
export const listPendingInvitations = (projectId: string) =>
  apiJson(`/projects/${enc(projectId)}/pending-invitations`, PendingInvitationListSchema);
export const cancelPendingInvitation = (projectId: string, login: string) =>
  apiVoid(`/projects/${enc(projectId)}/pending-invitations/${enc(login)}`, { method: 'DELETE' });
