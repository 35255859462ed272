import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TEST_PROVIDERS, TestWorker } from '@svc/test-kit';
import { ApiError, ServerApi } from '../../src/api/server-api';
import { writeWorkspaceFile } from '../../src/workspace/safe-fs';
import { WorkspaceSync } from '../../src/workspace/sync';
import { SERVER_SETUP_MS, startServerFixture, type ServerFixture } from '../support/real-server';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe.each(TEST_PROVIDERS)('WorkspaceSync against the real server on %s', (provider) => {
  let server: ServerFixture;
  let root: string;
  let sync: WorkspaceSync;
  /** The worker registered with the token: a worker token reaches only the workflows dispatched to it. */
  let holder: TestWorker;

  beforeAll(async () => {
    server = await startServerFixture({ provider });
    holder = await TestWorker.start(server.api, server.token, `sync-${provider}`, 100);
    holder.keepAlive();
  }, SERVER_SETUP_MS);
  afterAll(async () => {
    holder?.close();
    await server?.close();
  });
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'svc-ws-'));
    sync = new WorkspaceSync(new ServerApi({ serverUrl: server.api.url, token: server.token }), root);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A workflow of alice's, dispatched to the holder, whose workspace holds `files` (written through the REST API, as a user would). */
  async function workflowWith(files: Record<string, string>): Promise<string> {
    const { id } = await server.alice.createWorkflow(server.projectId, 'Sync files.');
    await holder.dispatch(id, 'start');
    for (const [p, content] of Object.entries(files)) {
      const res = await server.alice.fetch(`/workflows/${id}/files/${p.split('/').map(encodeURIComponent).join('/')}`, {
        method: 'PUT',
        body: content,
        headers: { 'content-type': 'application/octet-stream' },
      });
      if (!res.ok) throw new Error(`PUT ${p}: ${res.status} ${await res.text()}`);
    }
    return id;
  }

  /** The server's copy: every file path of the workspace with its text. */
  async function serverFiles(id: string): Promise<Record<string, string>> {
    const entries = await new ServerApi({ serverUrl: server.api.url, token: server.token }).listFiles(id);
    const files: Record<string, string> = {};
    for (const entry of entries.filter((e) => e.type === 'file'))
      files[entry.path] = await server.alice.file(id, entry.path);
    return files;
  }

  it('pulls the server copy and removes local files the server does not have', async () => {
    const id = await workflowWith({ 'README.md': '# Hello', 'src/app/main.ts': 'console.log(1)' });
    mkdirSync(path.join(root, id, 'node_modules', 'x'), { recursive: true });
    writeFileSync(path.join(root, id, 'stale.txt'), 'old');
    writeFileSync(path.join(root, id, 'node_modules', 'x', 'index.js'), 'kept');

    const state = await sync.pull(id);
    expect([...state.keys()].sort()).toEqual(['README.md', 'src/app/main.ts']);
    expect(readFileSync(path.join(root, id, 'src/app/main.ts'), 'utf8')).toBe('console.log(1)');
    expect(existsSync(path.join(root, id, 'stale.txt'))).toBe(false);
    expect(existsSync(path.join(root, id, 'node_modules', 'x', 'index.js'))).toBe(true);
  });

  it('uploads changed files, deletes removed ones and reports their sha256', async () => {
    const id = await workflowWith({ 'keep.txt': 'same', 'edit.txt': 'v1', 'gone.txt': 'bye' });
    const before = await sync.pull(id);
    const dir = sync.dir(id);
    writeFileSync(path.join(dir, 'edit.txt'), 'v2');
    writeFileSync(path.join(dir, 'new file ü.txt'), 'fresh');
    mkdirSync(path.join(dir, 'node_modules'));
    writeFileSync(path.join(dir, 'node_modules', 'big.js'), 'ignored');
    rmSync(path.join(dir, 'gone.txt'));

    const result = await sync.push(id, before);
    expect(result.changes).toEqual([
      { path: 'edit.txt', size: 2, sha256: sha('v2') },
      { path: 'new file ü.txt', size: 5, sha256: sha('fresh') },
    ]);
    expect(result.removed).toEqual(['gone.txt']);
    expect(await serverFiles(id)).toEqual({ 'edit.txt': 'v2', 'keep.txt': 'same', 'new file ü.txt': 'fresh' });
  });

  it('refuses a server path that would leave the workspace', async () => {
    // The real server never lists such a path (apps/api's traversal tests); the guard every pulled path
    // goes through still refuses one.
    mkdirSync(path.join(root, 'wf3'));
    await expect(writeWorkspaceFile(path.join(root, 'wf3'), '../outside.txt', 'x')).rejects.toThrow(
      'leaves the workspace',
    );
    expect(existsSync(path.join(root, 'outside.txt'))).toBe(false);
  });

  it('turns a server error body into an ApiError with its code', async () => {
    const api = new ServerApi({ serverUrl: server.api.url, token: 'bad' });
    const id = await workflowWith({});
    const err = await api.listFiles(id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 401, code: 'unauthenticated' });
  });
});
