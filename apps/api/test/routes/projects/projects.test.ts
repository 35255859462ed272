import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../../support/server';
import {
  addMember,
  body,
  captureEvents,
  createProject,
  createWorkflow,
  recordingSteering,
} from '../../support/fixtures';

describe.each(TEST_PROVIDERS)('projects on %s', (provider) => {
  let server: TestServer;
  let ann: string;
  let bob: string;
  let root: string;
  const dispatcher = recordingSteering();
  beforeAll(async () => {
    server = await startTestServer(provider, {}, { steering: dispatcher });
    [ann, bob, root] = await Promise.all([server.login('ann'), server.login('bob'), server.login('root')]);
  });
  afterAll(async () => server?.close());

  it('creates a project with its creator as owner', async () => {
    const res = await server.request('/svc/api/projects', {
      method: 'POST',
      as: ann,
      json: { name: '  Shop ', description: 'the web shop' },
    });
    expect(res.status).toBe(201);
    const project = await body(res);
    expect(project).toMatchObject({ name: 'Shop', description: 'the web shop', role: 'owner' });
    expect(res.headers.get('location')).toBe(`/svc/api/projects/${project.id}`);
    const members = await body(await server.request(`/svc/api/projects/${project.id}/members`, { as: ann }));
    expect(members).toEqual([expect.objectContaining({ login: 'ann', role: 'owner' })]);
  });

  it('lists only the projects the caller belongs to, with the caller role', async () => {
    const mine = await createProject(server, bob, 'Bob only');
    const list = await body(await server.request('/svc/api/projects', { as: bob }));
    expect(list).toEqual([expect.objectContaining({ id: mine.id, name: 'Bob only', role: 'owner' })]);
    const annList: { name: string }[] = await body(await server.request('/svc/api/projects', { as: ann }));
    expect(annList.map((p) => p.name)).not.toContain('Bob only');
  });

  it('lists every project for an administrator, with a role only where they are a member', async () => {
    const own = await createProject(server, root, 'Root own');
    const list: { id: string; name: string; role?: string }[] = await body(
      await server.request('/svc/api/projects', { as: root }),
    );
    expect(list.map((p) => p.name)).toEqual(expect.arrayContaining(['Shop', 'Bob only', 'Root own']));
    expect(list.find((p) => p.id === own.id)?.role).toBe('owner');
    expect(list.find((p) => p.name === 'Bob only')).not.toHaveProperty('role');
  });

  it('reads and renames a project, announcing the change', async () => {
    const project = await createProject(server, ann, 'Old');
    const { events, stop } = captureEvents(server);
    const res = await server.request(`/svc/api/projects/${project.id}`, {
      method: 'PATCH',
      as: ann,
      json: { name: 'New', description: 'd' },
    });
    stop();
    expect(res.status).toBe(200);
    expect(await body(res)).toMatchObject({ id: project.id, name: 'New', description: 'd', role: 'owner' });
    expect(await body(await server.request(`/svc/api/projects/${project.id}`, { as: ann }))).toMatchObject({
      name: 'New',
    });
    expect(events).toEqual([
      expect.objectContaining({ type: 'project_changed', project_id: project.id, data: { change: 'updated' } }),
    ]);
  });

  it('soft-deletes a project: hidden, files moved to the archive, nothing destroyed', async () => {
    const project = await createProject(server, ann, 'Doomed');
    const workflow = await createWorkflow(server, ann, project.id);
    const workspaceFile = join(server.dataDir, 'workspaces', project.id, workflow.id, 'index.html');
    writeFileSync(workspaceFile, '<h1>hi</h1>');
    mkdirSync(join(server.dataDir, 'storage', project.id, 'assets'), { recursive: true });
    writeFileSync(join(server.dataDir, 'storage', project.id, 'assets', 'logo.svg'), '<svg/>');
    dispatcher.reset();
    const { events, stop } = captureEvents(server);

    const res = await server.request(`/svc/api/projects/${project.id}`, { method: 'DELETE', as: ann });
    stop();
    expect(res.status).toBe(204);

    const row = await server.deps.db.project.findUniqueOrThrow({ where: { id: project.id } });
    expect(row.deleted_at).toBeInstanceOf(Date);
    expect(row.archive_path).toMatch(new RegExp(`archive/${project.id}-\\d{4}-\\d\\d-\\d\\dT`));
    expect(readFileSync(join(row.archive_path!, 'workspaces', workflow.id, 'index.html'), 'utf8')).toBe('<h1>hi</h1>');
    expect(readFileSync(join(row.archive_path!, 'storage', 'assets', 'logo.svg'), 'utf8')).toBe('<svg/>');
    expect(existsSync(join(server.dataDir, 'workspaces', project.id))).toBe(false);
    expect(existsSync(join(server.dataDir, 'storage', project.id))).toBe(false);

    const list: { id: string }[] = await body(await server.request('/svc/api/projects', { as: ann }));
    expect(list.map((p) => p.id)).not.toContain(project.id);
    expect((await server.request(`/svc/api/projects/${project.id}`, { as: ann })).status).toBe(404);
    expect((await server.request(`/svc/api/workflows/${workflow.id}`, { as: ann })).status).toBe(404);
    expect((await server.request(`/svc/api/projects/${project.id}`, { method: 'DELETE', as: ann })).status).toBe(404);

    // its unfinished workflow was cancelled and the worker side told so
    expect((await server.deps.db.workflow.findUniqueOrThrow({ where: { id: workflow.id } })).status).toBe('cancelled');
    expect(dispatcher.calls).toEqual([['cancel', workflow.id]]);
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['workflow_status', { status: 'cancelled', question: null }],
      ['project_changed', { change: 'workflow_updated', workflow_id: workflow.id }],
      ['project_changed', { change: 'deleted' }],
    ]);
  });

  it('deletes a project that never had files', async () => {
    const project = await createProject(server, ann, 'Empty');
    expect((await server.request(`/svc/api/projects/${project.id}`, { method: 'DELETE', as: ann })).status).toBe(204);
    const row = await server.deps.db.project.findUniqueOrThrow({ where: { id: project.id } });
    expect(existsSync(row.archive_path!)).toBe(true);
  });

  it('keeps the project live and its files in place when the archive cannot be written', async () => {
    const project = await createProject(server, ann, 'Stuck');
    mkdirSync(join(server.dataDir, 'storage', project.id), { recursive: true });
    writeFileSync(join(server.dataDir, 'storage', project.id, 'data.bin'), 'x');
    const archiveRoot = join(server.dataDir, 'archive');
    const existing = existsSync(archiveRoot);
    if (existing) renameSync(archiveRoot, `${archiveRoot}.bak`);
    writeFileSync(archiveRoot, 'not a directory'); // mkdir under it fails
    try {
      const res = await server.request(`/svc/api/projects/${project.id}`, { method: 'DELETE', as: ann });
      expect(res.status).toBe(500);
    } finally {
      rmSync(archiveRoot);
      if (existing) renameSync(`${archiveRoot}.bak`, archiveRoot);
    }
    const row = await server.deps.db.project.findUniqueOrThrow({ where: { id: project.id } });
    expect(row).toMatchObject({ deleted_at: null, archive_path: null });
    expect(readFileSync(join(server.dataDir, 'storage', project.id, 'data.bin'), 'utf8')).toBe('x');
    expect((await server.request(`/svc/api/projects/${project.id}`, { as: ann })).status).toBe(200);
  });

  it('lets only an owner or an administrator delete', async () => {
    const project = await createProject(server, ann, 'Kept');
    await addMember(server, ann, project.id, 'bob');
    const refused = await server.request(`/svc/api/projects/${project.id}`, { method: 'DELETE', as: bob });
    expect(refused.status).toBe(403);
    expect((await server.deps.db.project.findUniqueOrThrow({ where: { id: project.id } })).deleted_at).toBeNull();
    expect((await server.request(`/svc/api/projects/${project.id}`, { method: 'DELETE', as: root })).status).toBe(204);
  });
});
