import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApiError, ServerApi } from '../src/api/server-api';
import { WorkspaceSync } from '../src/workspace/sync';
import { ProtocolServer } from './support/protocol-server';
import { RestState } from './support/rest-state';

let server: ProtocolServer;
let rest: RestState;
let root: string;
let sync: WorkspaceSync;

beforeEach(async () => {
  rest = new RestState();
  server = await ProtocolServer.start({ rest: rest.handle });
  root = mkdtempSync(path.join(tmpdir(), 'svc-ws-'));
  sync = new WorkspaceSync(new ServerApi({ serverUrl: server.url, token: 'worker-token' }), root);
});
afterEach(() => server.close());

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('WorkspaceSync', () => {
  it('pulls the server copy and removes local files the server does not have', async () => {
    rest.workspace('wf1').set('README.md', Buffer.from('# Hello'));
    rest.workspace('wf1').set('src/app/main.ts', Buffer.from('console.log(1)'));
    mkdirSync(path.join(root, 'wf1', 'node_modules', 'x'), { recursive: true });
    writeFileSync(path.join(root, 'wf1', 'stale.txt'), 'old');
    writeFileSync(path.join(root, 'wf1', 'node_modules', 'x', 'index.js'), 'kept');

    const state = await sync.pull('wf1');
    expect([...state.keys()].sort()).toEqual(['README.md', 'src/app/main.ts']);
    expect(readFileSync(path.join(root, 'wf1', 'src/app/main.ts'), 'utf8')).toBe('console.log(1)');
    expect(existsSync(path.join(root, 'wf1', 'stale.txt'))).toBe(false);
    expect(existsSync(path.join(root, 'wf1', 'node_modules', 'x', 'index.js'))).toBe(true);
  });

  it('uploads changed files, deletes removed ones and reports their sha256', async () => {
    rest.workspace('wf2').set('keep.txt', Buffer.from('same'));
    rest.workspace('wf2').set('edit.txt', Buffer.from('v1'));
    rest.workspace('wf2').set('gone.txt', Buffer.from('bye'));
    const before = await sync.pull('wf2');
    const dir = sync.dir('wf2');
    writeFileSync(path.join(dir, 'edit.txt'), 'v2');
    writeFileSync(path.join(dir, 'new file ü.txt'), 'fresh');
    mkdirSync(path.join(dir, 'node_modules'));
    writeFileSync(path.join(dir, 'node_modules', 'big.js'), 'ignored');
    rmSync(path.join(dir, 'gone.txt'));

    const result = await sync.push('wf2', before);
    expect(result.changes).toEqual([
      { path: 'edit.txt', size: 2, sha256: sha('v2') },
      { path: 'new file ü.txt', size: 5, sha256: sha('fresh') },
    ]);
    expect(result.removed).toEqual(['gone.txt']);
    expect([...rest.workspace('wf2').keys()].sort()).toEqual(['edit.txt', 'keep.txt', 'new file ü.txt']);
    expect(rest.workspace('wf2').get('edit.txt')?.toString()).toBe('v2');
  });

  it('refuses a server path that would leave the workspace', async () => {
    rest.workspace('wf3').set('../outside.txt', Buffer.from('evil'));
    await expect(sync.pull('wf3')).rejects.toThrow('leaves the workspace');
    expect(existsSync(path.join(root, 'outside.txt'))).toBe(false);
  });

  it('turns a server error body into an ApiError with its code', async () => {
    const api = new ServerApi({ serverUrl: server.url, token: 'bad' });
    const err = await api.listFiles('wf1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 401, code: 'unauthenticated' });
  });
});
