import { eventually } from '@svc/test-kit';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DomainError } from '../../../src/domain/errors';
import type { TemplateCatalog } from '../../../src/services/templates';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../../support/server';
import { body, captureEvents, createProject, createWorkflow, recordingSteering } from '../../support/fixtures';

describe.each(TEST_PROVIDERS)('workflows on %s', (provider) => {
  let server: TestServer;
  let ann: string;
  let project: { id: string };
  const dispatcher = recordingSteering();
  let templatesDir: string;
  beforeAll(async () => {
    // A real directory-backed catalog stands in for the git template repository (another component).
    templatesDir = mkdtempSync(join(tmpdir(), 'svc-templates-'));
    mkdirSync(join(templatesDir, 'react', 'src'), { recursive: true });
    writeFileSync(join(templatesDir, 'react', 'package.json'), '{"name":"app"}');
    writeFileSync(join(templatesDir, 'react', 'src', 'main.tsx'), 'export {};');
    const templates: TemplateCatalog = {
      list: async () => [
        { name: 'react', description: 'Vite + React' },
        { name: 'broken', description: 'fails to copy' },
      ],
      materialize: async (name, target) => {
        if (name === 'broken') throw new DomainError('unavailable', 'template repository unreachable');
        for (const file of ['package.json', 'src/main.tsx'])
          await target.writeBuffer(await target.resolve(file), readFileSync(join(templatesDir, name, file)));
      },
    };
    server = await startTestServer(provider, {}, { steering: dispatcher, templates });
    ann = await server.login('ann');
    project = await createProject(server, ann);
  });
  beforeEach(() => dispatcher.reset());
  afterAll(async () => {
    await server?.close();
    rmSync(templatesDir, { recursive: true, force: true });
  });

  it('creates a pending workflow, keeps the requirement byte for byte and titles it from the first line', async () => {
    const { events, stop } = captureEvents(server);
    const requirement =
      '\n  \r\n  Build a 购物 shop with a really long first line that goes on and on past eighty bytes\r\n\n- cart 🛒\t\n';
    const res = await server.request(`/svc/api/projects/${project.id}/workflows`, {
      method: 'POST',
      as: ann,
      json: { requirement },
    });
    expect(res.status).toBe(201);
    const workflow = await body(res);
    expect(workflow).toMatchObject({
      project_id: project.id,
      requirement,
      status: 'pending',
      question: null,
      error: null,
      worker_id: null,
      template: null,
    });
    expect(workflow.title).toBe('Build a 购物 shop with a really long first line that goes on and on past eight'); // 80 bytes
    expect(Buffer.byteLength(workflow.title)).toBe(80);
    expect((await server.deps.db.workflow.findUniqueOrThrow({ where: { id: workflow.id } })).requirement).toBe(
      requirement,
    );
    expect(existsSync(join(server.dataDir, 'workspaces', project.id, workflow.id))).toBe(true);
    await eventually(() => dispatcher.calls.length === 2);
    stop();
    expect(dispatcher.calls).toEqual([
      ['workflowQueued', workflow.id],
      ['generateTitle', workflow.id],
    ]);
    const annUser = await server.deps.db.user.findUniqueOrThrow({ where: { login: 'ann' } });
    // Its first stored event says who created it; the project's subscribers learn of a new workflow.
    expect(events.map((e) => [e.type, e.seq, e.data])).toEqual([
      [
        'workflow_action',
        1,
        {
          action: 'created',
          actor: { id: annUser.id, login: 'ann', name: annUser.name },
          message: null,
          revision: 0,
        },
      ],
      ['project_changed', 0, { change: 'workflow_created', workflow_id: workflow.id }],
    ]);
  });

  it('answers at once even when the dispatcher never finishes or fails', async () => {
    // A request that waited for this dispatcher would never be answered (the test would time out).
    dispatcher.behaviour = () => new Promise(() => undefined);
    const hanging = await server.request(`/svc/api/projects/${project.id}/workflows`, {
      method: 'POST',
      as: ann,
      json: { requirement: 'Wait' },
    });
    expect(hanging.status).toBe(201);
    dispatcher.behaviour = async () => {
      throw new Error('no worker socket');
    };
    const failing = await server.request(`/svc/api/projects/${project.id}/workflows`, {
      method: 'POST',
      as: ann,
      json: { requirement: 'Fail' },
    });
    expect(failing.status).toBe(201);
    expect(
      (await body(await server.request(`/svc/api/workflows/${(await body(failing)).id}`, { as: ann }))).status,
    ).toBe('pending');
  });

  it('fills the workspace from a chosen template', async () => {
    const res = await server.request(`/svc/api/projects/${project.id}/workflows`, {
      method: 'POST',
      as: ann,
      json: { requirement: 'Shop', template: 'react' },
    });
    expect(res.status).toBe(201);
    const workflow = await body(res);
    expect(workflow.template).toBe('react');
    const dir = join(server.dataDir, 'workspaces', project.id, workflow.id);
    expect(readFileSync(join(dir, 'src', 'main.tsx'), 'utf8')).toBe('export {};');
  });

  it('refuses an unknown template and takes back a workflow whose template failed to copy', async () => {
    const before = await server.deps.db.workflow.count();
    const unknown = await server.request(`/svc/api/projects/${project.id}/workflows`, {
      method: 'POST',
      as: ann,
      json: { requirement: 'x', template: 'vue' },
    });
    expect(unknown.status).toBe(400);
    expect((await body(unknown)).error.message).toBe('body.template: no template named "vue"');
    const broken = await server.request(`/svc/api/projects/${project.id}/workflows`, {
      method: 'POST',
      as: ann,
      json: { requirement: 'x', template: 'broken' },
    });
    expect(broken.status).toBe(503);
    await expect(server.deps.db.workflow.count()).resolves.toBe(before);
  });

  it('accepts a registered worker choice by id or name and refuses an unknown one', async () => {
    const worker = await server.deps.db.worker.create({ data: { name: 'gpu-1', labels: [] } });
    const chosen = await server.request(`/svc/api/projects/${project.id}/workflows`, {
      method: 'POST',
      as: ann,
      json: { requirement: 'x', worker_id: worker.id },
    });
    expect((await body(chosen)).worker_id).toBe(worker.id);
    // The name works too (docs/decisions.md: "id or name"); the workflow keeps the worker's id.
    const byName = await server.request(`/svc/api/projects/${project.id}/workflows`, {
      method: 'POST',
      as: ann,
      json: { requirement: 'x', worker_id: 'gpu-1' },
    });
    expect(byName.status).toBe(201);
    expect((await body(byName)).worker_id).toBe(worker.id);
    const unknown = await server.request(`/svc/api/projects/${project.id}/workflows`, {
      method: 'POST',
      as: ann,
      json: { requirement: 'x', worker_id: 'nope' },
    });
    expect(unknown.status).toBe(400);
  });

  it('pages through workflows newest first with an opaque cursor', async () => {
    const other = await createProject(server, ann, 'Paged');
    const created: string[] = [];
    for (let i = 0; i < 5; i++) created.push((await createWorkflow(server, ann, other.id, `Workflow ${i}`)).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `?limit=2&cursor=${cursor}` : '?limit=2';
      const page = await body(await server.request(`/svc/api/projects/${other.id}/workflows${query}`, { as: ann }));
      seen.push(...page.items.map((w: { id: string }) => w.id));
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...created].reverse());
    const all = await body(await server.request(`/svc/api/projects/${other.id}/workflows`, { as: ann }));
    expect(all.next_cursor).toBeNull();
    expect(all.items).toHaveLength(5);
    const bad = await server.request(`/svc/api/projects/${other.id}/workflows?cursor=garbage!`, { as: ann });
    expect(bad.status).toBe(400);
    expect((await body(bad)).error).toMatchObject({ code: 'invalid_input', message: 'query.cursor: invalid cursor' });
  });

  it('soft-deletes a workflow, cancelling it first when it is still active', async () => {
    const workflow = await createWorkflow(server, ann, project.id);
    await server.deps.db.workflow.update({ where: { id: workflow.id }, data: { status: 'running' } });
    const res = await server.request(`/svc/api/workflows/${workflow.id}`, { method: 'DELETE', as: ann });
    expect(res.status).toBe(204);
    const row = await server.deps.db.workflow.findUniqueOrThrow({ where: { id: workflow.id } });
    expect(row).toMatchObject({ status: 'cancelled' });
    expect(row.deleted_at).toBeInstanceOf(Date);
    expect(dispatcher.calls).toContainEqual(['cancel', workflow.id]);
    expect((await server.request(`/svc/api/workflows/${workflow.id}`, { as: ann })).status).toBe(404);
    const list = await body(await server.request(`/svc/api/projects/${project.id}/workflows`, { as: ann }));
    expect(list.items.map((w: { id: string }) => w.id)).not.toContain(workflow.id);
    const events = await server.deps.events.since(workflow, 1); // after its `created` action
    expect(events.map((e) => e.data)).toEqual([{ status: 'cancelled', question: null }]);
  });

  it('deletes a finished workflow without touching its status or the dispatcher', async () => {
    const workflow = await createWorkflow(server, ann, project.id);
    await eventually(() => dispatcher.calls.length === 2);
    dispatcher.calls.length = 0;
    await server.deps.db.workflow.update({ where: { id: workflow.id }, data: { status: 'completed' } });
    expect((await server.request(`/svc/api/workflows/${workflow.id}`, { method: 'DELETE', as: ann })).status).toBe(204);
    expect((await server.deps.db.workflow.findUniqueOrThrow({ where: { id: workflow.id } })).status).toBe('completed');
    expect(dispatcher.calls).toEqual([]);
  });
});
