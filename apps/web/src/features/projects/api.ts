import {
  InvitationListSchema,
  MemberListSchema,
  MemberSchema,
  ProjectListSchema,
  ProjectSchema,
  type Role,
} from '@svc/protocol';
import { apiJson, apiVoid } from '../../lib/api';

const enc = encodeURIComponent;

export const listProjects = () => apiJson('/projects', ProjectListSchema);
export const createProject = (body: { name: string; description?: string }) =>
  apiJson('/projects', ProjectSchema, { method: 'POST', json: body });
export const deleteProject = (projectId: string) => apiVoid(`/projects/${enc(projectId)}`, { method: 'DELETE' });

export const listMembers = (projectId: string) => apiJson(`/projects/${enc(projectId)}/members`, MemberListSchema);
export const removeMember = (projectId: string, userId: string) =>
  apiVoid(`/projects/${enc(projectId)}/members/${enc(userId)}`, { method: 'DELETE' });
export const changeMemberRole = (projectId: string, userId: string, role: Role) =>
  apiJson(`/projects/${enc(projectId)}/members/${enc(userId)}`, MemberSchema, { method: 'PATCH', json: { role } });

/** The signed-in user's pending invitations; a project is joined only by accepting one. */
export const listInvitations = () => apiJson('/invitations', InvitationListSchema);
export const acceptInvitation = (projectId: string) =>
  apiJson(`/invitations/${enc(projectId)}/accept`, MemberSchema, { method: 'POST' });
export const declineInvitation = (projectId: string) => apiVoid(`/invitations/${enc(projectId)}`, { method: 'DELETE' });
