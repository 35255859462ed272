import { plan, scriptedAgent } from '@svc/scripted-llm';
import type { DeletedProject, Project } from '@svc/protocol';
import { E2E_TIMEOUT_MS, startStack, type CliStack } from '../support/stack';

// Issue 26: `svc projects deleted` and `svc project restore <id>` against the real server (administrators).
describe('svc project restore with a real server', () => {
  let stack: CliStack;
  beforeAll(async () => {
    stack = await startStack(scriptedAgent({ title: 'Unused', planning: [plan('Nothing')], steps: {} }));
  }, E2E_TIMEOUT_MS);
  afterAll(async () => stack?.close());

  const svc = (args: string[], expected = 0) => stack.svcExiting(args, expected);

  it(
    'lists a deleted project and restores it for an administrator; refuses anyone else',
    async () => {
      const { id } = await stack.alice.json<Project>('/projects', { json: { name: 'brought back' } });
      await stack.alice.fetch(`/projects/${id}/storage/kept.txt`, { method: 'PUT', body: 'kept' });
      expect((await stack.alice.fetch(`/projects/${id}`, { method: 'DELETE' })).status).toBe(204);

      // alice owns it but is no administrator
      expect((await svc(['project', 'restore', id], 1)).stderr).toMatch(/forbidden|not allowed/);

      const root = (await svc(['token', 'create', '--dev-user', 'root'])).stdout.trim();
      const deleted = JSON.parse(
        (await svc(['--token', root, '--json', 'projects', 'deleted'])).stdout,
      ) as DeletedProject[];
      expect(deleted.map((p) => [p.id, p.name])).toContainEqual([id, 'brought back']);
      expect((await svc(['--token', root, 'project', 'restore', id])).stdout).toBe(`restored ${id}  brought back\n`);

      const projects = JSON.parse((await svc(['--json', 'projects'])).stdout) as Project[];
      expect(projects.map((p) => p.id)).toContain(id);
      expect(await stack.alice.text(`/projects/${id}/storage/kept.txt`)).toBe('kept');
      expect((await svc(['--token', root, 'project', 'restore', id], 1)).stderr).toMatch(
        /not found|no deleted project/,
      );
    },
    E2E_TIMEOUT_MS,
  );
});
