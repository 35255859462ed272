import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../../support/server';
import { body, captureEvents, createProject, createWorkflow, recordingSteering } from '../../support/fixtures';
import { storeCutCommandOutput, wholeOutput } from '../../support/command-output';

const WHOLE_OUTPUT = wholeOutput('restored');

/** Issue 26: an administrator lists deleted projects and brings one back from its archive. */
describe.each(TEST_PROVIDERS)('restoring a deleted project on %s', (provider) => {
  let server: TestServer;
  let ann: string;
  let root: string;
  const dispatcher = recordingSteering();
  beforeAll(async () => {
    server = await startTestServer(provider, {}, { steering: dispatcher });
    [ann, root] = await Promise.all([server.login('ann'), server.login('root')]);
  });
  afterAll(async () => server?.close());

  const restoredRows = (projectId: string) =>
    server.deps.db.auditEvent.count({ where: { action: 'project.restored', project_id: projectId } });

  /** A project with a run, a workspace file and a stored object, deleted by its owner. */
  async function deletedProject(name: string) {
    const project = await createProject(server, ann, name);
    const workflow = await createWorkflow(server, ann, project.id);
    const put = (path: string, content: string) =>
      server.request(path, { method: 'PUT', as: ann, body: content, headers: { 'content-type': 'text/plain' } });
    expect((await put(`/svc/api/workflows/${workflow.id}/files/index.html`, '<h1>kept</h1>')).status).toBeLessThan(300);
    expect((await put(`/svc/api/projects/${project.id}/storage/assets/logo.svg`, '<svg/>')).status).toBeLessThan(300);
    // a cut command output whose whole the run keeps (decision 0073), as a worker leaves it
    await storeCutCommandOutput(server, project.id, workflow.id, WHOLE_OUTPUT);
    expect((await server.request(`/svc/api/projects/${project.id}`, { method: 'DELETE', as: ann })).status).toBe(204);
    return { project, workflow };
  }

  it('lists deleted projects for administrators only', async () => {
    const { project } = await deletedProject('Listed');
    expect((await server.request('/svc/api/admin/deleted-projects', { as: ann })).status).toBe(403);
    const res = await server.request('/svc/api/admin/deleted-projects', { as: root });
    expect(res.status).toBe(200);
    const list: { id: string; name: string; workflow_count: number; archive_path: string }[] = await body(res);
    expect(list.find((p) => p.id === project.id)).toMatchObject({ name: 'Listed', workflow_count: 1 });
  });

  it('moves the files back, clears the deletion, writes one audit row and tells the project', async () => {
    const { project, workflow } = await deletedProject('Back');
    const row = await server.deps.db.project.findUniqueOrThrow({ where: { id: project.id } });
    expect(existsSync(row.archive_path!)).toBe(true);
    expect(existsSync(join(row.archive_path!, 'command-outputs', workflow.id, 'whole.log'))).toBe(true);
    expect(existsSync(join(server.dataDir, 'command-outputs', project.id))).toBe(false);

    const refused = await server.request(`/svc/api/projects/${project.id}/restore`, { method: 'POST', as: ann });
    expect(refused.status).toBe(403);
    expect(await restoredRows(project.id)).toBe(0);

    const { events, stop } = captureEvents(server);
    const res = await server.request(`/svc/api/projects/${project.id}/restore`, { method: 'POST', as: root });
    stop();
    expect(res.status).toBe(200);
    expect(await body(res)).toMatchObject({ id: project.id, name: 'Back' });
    expect(await restoredRows(project.id)).toBe(1);
    const audit = await server.deps.db.auditEvent.findFirstOrThrow({
      where: { action: 'project.restored', project_id: project.id },
    });
    expect(audit).toMatchObject({ actor_login: 'root', target_type: 'project', target_id: project.id });
    expect(events.map((e) => [e.type, e.project_id, e.data])).toEqual([
      ['project_changed', project.id, { change: 'restored' }],
    ]);

    expect(await server.deps.db.project.findUniqueOrThrow({ where: { id: project.id } })).toMatchObject({
      deleted_at: null,
      archive_path: null,
    });
    expect(existsSync(row.archive_path!)).toBe(false);
    const list: { id: string }[] = await body(await server.request('/svc/api/projects', { as: ann }));
    expect(list.map((p) => p.id)).toContain(project.id);
    const run = await server.request(`/svc/api/workflows/${workflow.id}`, { as: ann });
    expect(run.status).toBe(200);
    expect((await body(run)).status).toBe('cancelled');
    const file = await server.request(`/svc/api/workflows/${workflow.id}/files/index.html`, { as: ann });
    expect(await file.text()).toBe('<h1>kept</h1>');
    const object = await server.request(`/svc/api/projects/${project.id}/storage/assets/logo.svg`, { as: ann });
    expect(await object.text()).toBe('<svg/>');
    // the run's raw log is whole again: its command output was archived and came back (decision 0080)
    const raw = await server.request(`/svc/api/workflows/${workflow.id}/log/raw`, { as: ann });
    expect(raw.status).toBe(200);
    expect(await raw.text()).toContain(WHOLE_OUTPUT);

    // once restored it is live: a second restore finds no deleted project and writes nothing
    const again = await server.request(`/svc/api/projects/${project.id}/restore`, { method: 'POST', as: root });
    expect(again.status).toBe(404);
    expect(await restoredRows(project.id)).toBe(1);
    const deleted: { id: string }[] = await body(await server.request('/svc/api/admin/deleted-projects', { as: root }));
    expect(deleted.map((p) => p.id)).not.toContain(project.id);
  });

  it('answers 404 for an unknown id', async () => {
    const res = await server.request('/svc/api/projects/no-such-project/restore', { method: 'POST', as: root });
    expect(res.status).toBe(404);
  });

  it('refuses with 409 and changes nothing when files are already at their place', async () => {
    const { project } = await deletedProject('Blocked');
    const row = await server.deps.db.project.findUniqueOrThrow({ where: { id: project.id } });
    mkdirSync(join(server.dataDir, 'storage', project.id), { recursive: true });
    writeFileSync(join(server.dataDir, 'storage', project.id, 'intruder.txt'), 'x');
    const res = await server.request(`/svc/api/projects/${project.id}/restore`, { method: 'POST', as: root });
    expect(res.status).toBe(409);
    expect(await server.deps.db.project.findUniqueOrThrow({ where: { id: project.id } })).toMatchObject({
      deleted_at: row.deleted_at,
      archive_path: row.archive_path,
    });
    expect(existsSync(join(row.archive_path!, 'storage', 'assets', 'logo.svg'))).toBe(true);
    expect(await restoredRows(project.id)).toBe(0);
  });
});
