import type { TestServer } from './server';

/**
 * Makes `login` a member of the project however the server adds members (an invitation the invitee
 * accepts, or a direct add), so these tests exercise what a member can do, not how they joined.
 */
export async function join(server: TestServer, owner: string, projectId: string, login: string): Promise<void> {
  const res = await server.request(`/svc/api/projects/${projectId}/members`, {
    method: 'POST',
    as: owner,
    json: { login, role: 'member' },
  });
  if (res.status === 201) return;
  if (res.status !== 202) throw new Error(`add member: ${res.status} ${await res.text()}`);
  const accepted = await server.request(`/svc/api/invitations/${projectId}/accept`, {
    method: 'POST',
    as: await server.login(login),
  });
  if (accepted.status !== 201) throw new Error(`accept invitation: ${accepted.status} ${await accepted.text()}`);
}
