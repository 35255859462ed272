import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TEST_PROVIDERS } from '@svc/test-kit';
import { configFromEnv } from '../../src/config';
import { backfillAppKeys } from '../../src/apps/app-link';
import { startTestServer, type TestServer } from '../support/server';
import { body, createProject, createWorkflow } from '../support/fixtures';
import { traversalPayloads } from '../fixtures/traversal-payloads';
import { inPool, rawRequest } from '../support/raw-http';

const LINK = /^(http:\/\/127\.0\.0\.1:\d+)\/svc\/apps\/([A-Za-z0-9_-]{43})\/$/;
const SANDBOX = 'sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads';

/**
 * Issue 14, finding 2: a workflow's built app opens at its capability link with no session, its own
 * stylesheet and scripts load, and nothing outside its workspace (nor the session) is reachable.
 */
describe.each(TEST_PROVIDERS)('built apps on %s', (provider) => {
  let server: TestServer;
  let alice: string;
  let bob: string;
  let projectId: string;
  let workflowId: string;
  let link: string;
  let workspaceDir: string;

  const wire = async (id: string, as = alice) => body(await server.request(`/svc/api/workflows/${id}`, { as }));
  const pathOf = (url: string) => new URL(url).pathname;
  /** A workflow in a project of its own (run numbers are per project; each test keeps to its own). */
  const freshWorkflow = async () => {
    const project = (await createProject(server, alice, 'Apps')).id;
    return { project, id: (await createWorkflow(server, alice, project)).id };
  };

  beforeAll(async () => {
    server = await startTestServer(provider);
    alice = await server.login('alice');
    bob = await server.login('bob');
    projectId = (await createProject(server, alice)).id;
    workflowId = (await createWorkflow(server, alice, projectId)).id;
    link = (await wire(workflowId)).app_link;
    workspaceDir = join(server.dataDir, 'workspaces', projectId, workflowId);
    mkdirSync(join(workspaceDir, 'docs'), { recursive: true });
    writeFileSync(join(workspaceDir, 'index.html'), '<link rel="stylesheet" href="style.css"><h1>Shop</h1>');
    writeFileSync(join(workspaceDir, 'style.css'), 'h1 { color: rgb(1, 2, 3); }');
    writeFileSync(join(workspaceDir, 'docs', 'index.html'), '<p>docs</p>');
    writeFileSync(join(server.dataDir, 'workspaces', projectId, 'outside.txt'), 'outside the workspace');
    symlinkSync(join(server.dataDir, 'workspaces', projectId, 'outside.txt'), join(workspaceDir, 'escape.txt'));
  });
  afterAll(async () => server?.close());

  it('gives every workflow an unguessable link on the public URL, the same on every read path', async () => {
    expect(link).toMatch(LINK);
    expect(LINK.exec(link)![1]).toBe(server.url);
    const listed = await body(await server.request(`/svc/api/projects/${projectId}/workflows`, { as: alice }));
    expect(listed.items.find((w: { id: string }) => w.id === workflowId).app_link).toBe(link);
    const other = (await freshWorkflow()).id;
    expect((await wire(other)).app_link).toMatch(LINK);
    expect((await wire(other)).app_link).not.toBe(link);
  });

  it('serves index.html for / with the sandbox headers, and the files next to it, without a session', async () => {
    const page = await rawRequest(server.url, pathOf(link));
    expect(page.status).toBe(200);
    expect(page.text()).toContain('<h1>Shop</h1>');
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toBe(SANDBOX);
    expect(page.headers['content-security-policy']).not.toContain('allow-same-origin');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toBe('private, no-cache');
    const css = await rawRequest(server.url, `${pathOf(link)}style.css`);
    expect({ status: css.status, type: css.headers['content-type'], text: css.text() }).toEqual({
      status: 200,
      type: 'text/css; charset=utf-8',
      text: 'h1 { color: rgb(1, 2, 3); }',
    });
    const docs = await rawRequest(server.url, `${pathOf(link)}docs/`);
    expect(docs.text()).toBe('<p>docs</p>');
  });

  it('redirects a directory named without its slash, so relative links resolve inside it', async () => {
    const bare = await rawRequest(server.url, pathOf(link).replace(/\/$/, ''));
    expect({ status: bare.status, location: bare.headers.location }).toEqual({ status: 301, location: pathOf(link) });
    const docs = await rawRequest(server.url, `${pathOf(link)}docs?x=1`);
    expect({ status: docs.status, location: docs.headers.location }).toEqual({
      status: 301,
      location: `${pathOf(link)}docs/?x=1`,
    });
  });

  it('ignores any credential sent along and refuses writes', async () => {
    const withCookie = await rawRequest(server.url, `${pathOf(link)}style.css`, {
      headers: { cookie: 'svc_session=forged', origin: 'null' },
    });
    expect(withCookie.status).toBe(200);
    const put = await rawRequest(server.url, `${pathOf(link)}style.css`, { method: 'PUT', as: alice, body: 'x' });
    expect(put.status).toBe(404);
    expect(put.json().error.code).toBe('not_found');
    expect((await rawRequest(server.url, `${pathOf(link)}style.css`)).text()).toBe('h1 { color: rgb(1, 2, 3); }');
  });

  it('answers 404 for a missing file, an unknown or malformed key', async () => {
    const missing = await rawRequest(server.url, `${pathOf(link)}nope.js`);
    expect({ status: missing.status, code: missing.json().error.code }).toEqual({ status: 404, code: 'not_found' });
    expect(missing.json().error.request_id).toBeTruthy();
    for (const key of ['A'.repeat(43), 'short', `${'A'.repeat(42)}%2e`, `${'A'.repeat(42)}.`])
      expect((await rawRequest(server.url, `/svc/apps/${key}/index.html`)).status).toBe(404);
  });

  it('never leaves the workspace: traversal in every spelling, NUL, a symlink out', async () => {
    const payloads = traversalPayloads('outside.txt');
    const failures: string[] = [];
    await inPool(payloads, 16, async (payload) => {
      const res = await rawRequest(server.url, `${pathOf(link)}${payload}`);
      const code = res.status === 400 || res.status === 404 ? res.json().error?.code : undefined;
      if (!['invalid_path', 'not_found'].includes(code) || res.text().includes('outside the workspace'))
        failures.push(`${payload} -> ${res.status} ${res.text().slice(0, 100)}`);
    });
    expect(failures).toEqual([]);
    const symlink = await rawRequest(server.url, `${pathOf(link)}escape.txt`);
    expect([400, 404]).toContain(symlink.status);
    expect(symlink.text()).not.toContain('outside the workspace');
  });

  it('rotates the link for members only; the old link is dead at once', async () => {
    const { project, id } = await freshWorkflow();
    const before = (await wire(id)).app_link as string;
    expect((await rawRequest(server.url, pathOf(before))).status).toBe(404); // an empty workspace: no index.html
    writeFileSync(join(server.dataDir, 'workspaces', project, id, 'index.html'), 'v1');
    expect((await rawRequest(server.url, pathOf(before))).status).toBe(200);

    const stranger = await server.request(`/svc/api/workflows/${id}/app-link/rotate`, { method: 'POST', as: bob });
    expect(stranger.status).toBe(404);
    expect((await wire(id)).app_link).toBe(before);

    const rotated = await server.request(`/svc/api/workflows/${id}/app-link/rotate`, { method: 'POST', as: alice });
    expect(rotated.status).toBe(200);
    const after = (await body(rotated)).app_link as string;
    expect(after).toMatch(LINK);
    expect(after).not.toBe(before);
    expect((await wire(id)).app_link).toBe(after);
    expect((await rawRequest(server.url, pathOf(before))).status).toBe(404);
    expect((await rawRequest(server.url, pathOf(after))).text()).toBe('v1');
  });

  it('is gone with its workflow and with its project', async () => {
    const runs = [await freshWorkflow(), await freshWorkflow()];
    const ids = runs.map((run) => run.id);
    const links: string[] = [];
    for (const { project, id } of runs) {
      writeFileSync(join(server.dataDir, 'workspaces', project, id, 'index.html'), 'live');
      links.push((await wire(id)).app_link);
      expect((await rawRequest(server.url, pathOf(links.at(-1)!))).status).toBe(200);
    }
    expect((await server.request(`/svc/api/workflows/${ids[0]}`, { method: 'DELETE', as: alice })).status).toBe(204);
    expect((await rawRequest(server.url, pathOf(links[0]!))).status).toBe(404);
    expect((await rawRequest(server.url, pathOf(links[1]!))).status).toBe(200);
    const project = runs[1]!.project;
    expect((await server.request(`/svc/api/projects/${project}`, { method: 'DELETE', as: alice })).status).toBe(204);
    expect((await rawRequest(server.url, pathOf(links[1]!))).status).toBe(404);
  });

  it('gives workflows made before app links a key (the start-up backfill)', async () => {
    const { id } = await freshWorkflow();
    await server.deps.db.workflow.update({ where: { id }, data: { app_key: null } });
    expect((await wire(id)).app_link).toBeNull();
    expect(await backfillAppKeys(server.deps.db)).toBe(1);
    expect((await wire(id)).app_link).toMatch(LINK);
  });

  it('stops the backfill between rows once shutdown asks it to, leaving the rest for the next start', async () => {
    const ids = [(await freshWorkflow()).id, (await freshWorkflow()).id, (await freshWorkflow()).id];
    await server.deps.db.workflow.updateMany({ where: { id: { in: ids } }, data: { app_key: null } });
    let asked = 0;
    // "stopped" turns true after the first row is written: one key, then nothing more.
    expect(await backfillAppKeys(server.deps.db, () => asked++ >= 2)).toBe(1);
    expect(await server.deps.db.workflow.count({ where: { id: { in: ids }, app_key: null } })).toBe(2);
    expect(await backfillAppKeys(server.deps.db)).toBe(2);
  });
});

describe('APP_ORIGIN', () => {
  const base = { DATA_DIR: '/tmp/unused', AUTH_PROVIDER: 'dev' };

  it('builds app links on its own origin', async () => {
    const server = await startTestServer(TEST_PROVIDERS[0]!, { APP_ORIGIN: 'https://apps.example.com/' });
    try {
      const alice = await server.login('alice');
      const project = (await createProject(server, alice)).id;
      const id = (await createWorkflow(server, alice, project)).id;
      const wire = await body(await server.request(`/svc/api/workflows/${id}`, { as: alice }));
      expect(wire.app_link).toMatch(/^https:\/\/apps\.example\.com\/svc\/apps\/[A-Za-z0-9_-]{43}\/$/);
    } finally {
      await server.close();
    }
  });

  it.each(['ftp://apps.example.com', 'https://apps.example.com/path', 'apps.example.com', 'https://a.com?x=1'])(
    'refuses %s',
    (value) => {
      expect(() => configFromEnv({ ...base, APP_ORIGIN: value })).toThrow(/APP_ORIGIN/);
    },
  );

  it('is optional, and PUBLIC_URL follows HOST and PORT when unset', () => {
    const config = configFromEnv({ ...base, PORT: '18260', PUBLIC_URL: '' });
    expect({ publicUrl: config.publicUrl, appOrigin: config.appOrigin }).toEqual({
      publicUrl: 'http://127.0.0.1:18260',
      appOrigin: null,
    });
    // Bound to every interface, the address a browser on this machine opens.
    expect(configFromEnv({ ...base, HOST: '0.0.0.0', PORT: '18260', PUBLIC_URL: '' }).publicUrl).toBe(
      'http://localhost:18260',
    );
  });
});
