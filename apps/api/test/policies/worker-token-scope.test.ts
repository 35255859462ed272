import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { request, signIn, TestWorker, workerToken, type TestRequestInit } from '@svc/test-kit';
import { configFromEnv } from '../../src/config';
import { buildRuntime } from '../../src/bootstrap';
import { startServer } from '../../src/server';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { body, createProject } from '../support/fixtures';
import { SETUP_TIMEOUT_MS } from '../ws/clients';

/** Issue 21, finding 5: a worker token reaches only the workflows dispatched to its worker, while its minter is an administrator. */

type Call = (path: string, init?: TestRequestInit) => Promise<Response>;

/** Everything a worker token must not reach in a project whose workflow was not dispatched to it. */
async function foreignStatuses(call: Call, as: string, projectId: string, workflowId: string) {
  const status = async (path: string, init: TestRequestInit = {}) => {
    const res = await call(`/svc/api${path}`, { ...init, as });
    const text = await res.text();
    if (res.status >= 400) expect(JSON.parse(text).error).toMatchObject({ request_id: expect.any(String) });
    return res.status;
  };
  return {
    storageList: await status(`/projects/${projectId}/storage/`),
    storageRead: await status(`/projects/${projectId}/storage/secret.txt`),
    storageWrite: await status(`/projects/${projectId}/storage/planted.txt`, { method: 'PUT', body: 'x' }),
    workflows: await status(`/projects/${projectId}/workflows`),
    workflow: await status(`/workflows/${workflowId}`),
    files: await status(`/workflows/${workflowId}/files`),
    fileRead: await status(`/workflows/${workflowId}/files/notes.md?raw`),
    fileWrite: await status(`/workflows/${workflowId}/files/planted.txt`, { method: 'PUT', body: 'x' }),
    archive: await status(`/workflows/${workflowId}/archive`),
    jobToken: await status('/token', { json: { scope: 'job', workflow_id: workflowId } }),
  };
}

const NOTHING = {
  storageList: 404,
  storageRead: 404,
  storageWrite: 404,
  workflows: 404,
  workflow: 404,
  files: 404,
  fileRead: 404,
  fileWrite: 404,
  archive: 404,
  jobToken: 404,
};

describe.each(TEST_PROVIDERS)('what a worker token reaches, on %s', (provider) => {
  let server: TestServer;
  let alice: string;
  let projectA: string;
  let projectB: string;
  let workflowA: string;
  let workflowB: string;
  let idleToken: string;
  let busyToken: string;
  let worker: TestWorker;

  const createWorkflow = async (projectId: string) =>
    (
      await body<{ id: string }>(
        await server.request(`/svc/api/projects/${projectId}/workflows`, { as: alice, json: { requirement: 'r' } }),
      )
    ).id;
  const put = (path: string, as: string, content: string) =>
    server.request(`/svc/api${path}`, { method: 'PUT', as, body: content });

  beforeAll(async () => {
    server = await startTestServer(provider);
    alice = await server.login('alice');
    projectA = (await createProject(server, alice, 'A')).id;
    projectB = (await createProject(server, alice, 'B')).id;
    idleToken = await workerToken(server);
    busyToken = await workerToken(server);
    worker = await TestWorker.start(server, busyToken, 'busy');
    worker.keepAlive();
    workflowA = await createWorkflow(projectA);
    await worker.dispatch(workflowA);
    // The worker (capacity 1) is busy with A: B waits in the queue, dispatched to nobody.
    workflowB = await createWorkflow(projectB);
    expect((await put(`/projects/${projectB}/storage/secret.txt`, alice, 'secret')).status).toBe(201);
    expect((await put(`/workflows/${workflowB}/files/notes.md`, alice, '# notes')).status).toBe(201);
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    worker?.close();
    await server?.close();
  });

  const untouched = async () => {
    const storage = await server.request(`/svc/api/projects/${projectB}/storage/`, { as: alice });
    const files = await server.request(`/svc/api/workflows/${workflowB}/files?path=&recursive=1`, { as: alice });
    return [await storage.json(), await files.json()];
  };

  it('reaches no project with a worker that never connected', async () => {
    const before = await untouched();
    expect(await foreignStatuses(server.request, idleToken, projectB, workflowB)).toEqual(NOTHING);
    expect(await foreignStatuses(server.request, idleToken, projectA, workflowA)).toEqual(NOTHING);
    expect(await untouched()).toEqual(before);
  });

  it("reaches the workflow dispatched to its worker, and nothing of another project nor its own project's storage", async () => {
    const before = await untouched();
    expect(await foreignStatuses(server.request, busyToken, projectB, workflowB)).toEqual(NOTHING);
    expect(await untouched()).toEqual(before);

    // What the worker really calls (apps/worker/src/api/server-api.ts) works on its own workflow.
    const own = await foreignStatuses(server.request, busyToken, projectA, workflowA);
    expect(own).toEqual({
      ...NOTHING,
      workflow: 200,
      files: 200,
      fileRead: 404, // no such file in A's workspace
      fileWrite: 201,
      archive: 200,
      jobToken: 201,
    });
  });

  it("lists only its own worker's runs", async () => {
    type Listed = { name: string; current_runs?: { workflow_id: string }[] };
    const runsSeenBy = async (as: string) =>
      (await body<Listed[]>(await server.request('/svc/api/workers', { as }))).find((w) => w.name === 'busy')
        ?.current_runs;
    expect(await runsSeenBy(alice)).toEqual([expect.objectContaining({ workflow_id: workflowA })]);
    expect(await runsSeenBy(busyToken)).toEqual([expect.objectContaining({ workflow_id: workflowA })]);
    expect(await runsSeenBy(idleToken)).toEqual([]);
  });
});

describe.each(TEST_PROVIDERS)('a worker token after its minter leaves ADMIN_USERS, on %s', (provider) => {
  let database: TestDatabase;
  let dataDir: string;

  /** A real server on the test's database and data directory, so the next one starts on the same state. */
  async function serverOn(adminUsers: string) {
    const config = configFromEnv({
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      AUTH_PROVIDER: 'dev',
      ADMIN_USERS: adminUsers,
      LOG_LEVEL: 'silent',
    });
    const runtime = await buildRuntime(config, pino({ level: 'silent' }));
    const running = await startServer(runtime, { port: 0, host: '127.0.0.1' });
    runtime.deps.config.publicUrl = running.url;
    const call: Call = (path, init) => request(running.url, path, init);
    return { url: running.url, call, close: () => running.close() };
  }

  beforeAll(async () => {
    database = await createTestDatabase(provider);
    dataDir = mkdtempSync(join(tmpdir(), 'svc-worker-minter-'));
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses the token, and the job tokens it minted, once the next server no longer lists the minter', async () => {
    const before = await serverOn('root,rose');
    let [rosesToken, rootsToken, jobToken, workflowId] = ['', '', '', ''];
    try {
      rosesToken = await workerToken(before, 'rose');
      rootsToken = await workerToken(before, 'root');
      const alice = await signIn(before.url, 'alice');
      const project = await body<{ id: string }>(
        await before.call('/svc/api/projects', { as: alice, json: { name: 'P' } }),
      );
      const worker = await TestWorker.start(before, rosesToken, 'roses');
      workflowId = (
        await body<{ id: string }>(
          await before.call(`/svc/api/projects/${project.id}/workflows`, { as: alice, json: { requirement: 'r' } }),
        )
      ).id;
      await worker.dispatch(workflowId);
      expect((await before.call(`/svc/api/workflows/${workflowId}/files`, { as: rosesToken })).status).toBe(200);
      const minted = await before.call('/svc/api/token', {
        as: rosesToken,
        json: { scope: 'job', workflow_id: workflowId },
      });
      expect(minted.status).toBe(201);
      jobToken = (await body<{ token: string }>(minted)).token;
      expect((await before.call(`/svc/api/workflows/${workflowId}`, { as: jobToken })).status).toBe(200);
      worker.close();
    } finally {
      await before.close();
    }

    const after = await serverOn('root');
    try {
      for (const [as, path] of [
        [rosesToken, `/svc/api/workflows/${workflowId}/files`],
        [rosesToken, '/svc/api/workers'],
        [jobToken, `/svc/api/workflows/${workflowId}`],
      ] as const) {
        const res = await after.call(path, { as });
        expect(res.status).toBe(401);
        expect((await body(res)).error).toMatchObject({ code: 'unauthenticated', request_id: expect.any(String) });
      }
      await expect(TestWorker.connect(after, rosesToken)).rejects.toMatchObject({ status: 401 });
      // The administrator who is still listed keeps a working token.
      expect((await after.call('/svc/api/workers', { as: rootsToken })).status).toBe(200);
    } finally {
      await after.close();
    }
  });
});
