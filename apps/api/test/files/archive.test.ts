import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Parser, type ReadEntry } from 'tar';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { body, createProject, createWorkflow } from '../resources/fixtures';

interface Entry {
  path: string;
  type: string;
  size: number;
  linkpath?: string;
}

/** Every entry of a .tar.gz, read with node-tar's parser. */
async function entriesOf(archive: Buffer): Promise<Entry[]> {
  const entries: Entry[] = [];
  await new Promise<void>((resolve, reject) => {
    const parser = new Parser({
      strict: true,
      onReadEntry: (entry: ReadEntry) => {
        entries.push({
          path: entry.path,
          type: entry.type,
          size: entry.size,
          ...(entry.linkpath ? { linkpath: entry.linkpath } : {}),
        });
        entry.resume();
      },
    });
    parser.on('end', () => resolve());
    parser.on('error', reject);
    parser.end(archive);
  });
  return entries.sort((a, b) => a.path.localeCompare(b.path));
}

describe.each(TEST_PROVIDERS)('workspace archive on %s', (provider) => {
  let server: TestServer;
  let alice: string;
  let projectId: string;
  let outside: string;

  beforeAll(async () => {
    server = await startTestServer(provider);
    alice = await server.login('alice');
    projectId = (await createProject(server, alice)).id;
    outside = mkdtempSync(join(tmpdir(), 'svc-outside-'));
    writeFileSync(join(outside, 'secret.txt'), 'not yours');
  });
  afterAll(async () => {
    await server?.close();
    rmSync(outside, { recursive: true, force: true });
  });

  const put = async (id: string, path: string, content: string | Buffer) => {
    const res = await server.request(`/svc/api/workflows/${id}/files/${path}`, {
      method: 'PUT',
      as: alice,
      body: content,
    });
    expect(res.status).toBe(201);
  };

  it('streams the workspace as tar.gz: files and dirs, inner relative links; nothing that leaves it', async () => {
    const { id } = await createWorkflow(server, alice, projectId);
    const big = randomBytes(3 * 1024 * 1024 + 17);
    await put(id, 'index.html', '<h1>Hello</h1>\n');
    await put(id, 'src/app/main.ts', 'console.log(1);\n');
    await put(id, 'données/été.txt', 'ünïcödé\n');
    await put(id, 'blob.bin', big);
    const root = join(server.dataDir, 'workspaces', projectId, id);
    mkdirSync(join(root, 'empty-dir'));
    symlinkSync('src/app/main.ts', join(root, 'link-in'));
    symlinkSync('../index.html', join(root, 'src', 'link-up-inside'));
    symlinkSync(join(root, 'index.html'), join(root, 'link-absolute'));
    symlinkSync(join(outside, 'secret.txt'), join(root, 'link-out'));
    symlinkSync('../../../../../../../../../../..' + outside, join(root, 'link-out-relative'));
    symlinkSync(outside, join(root, 'dir-out'));
    symlinkSync('missing.txt', join(root, 'dangling'));
    writeFileSync(join(root, '.svc-upload-abc123'), 'half an upload');
    writeFileSync(join(root, 'src', '.svc-upload-def456'), 'another half');
    execFileSync('mkfifo', [join(root, 'pipe')]);

    const res = await server.request(`/svc/api/workflows/${id}/archive`, { as: alice });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/gzip');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="workflow-${id}.tar.gz"`);
    const archive = Buffer.from(await res.arrayBuffer());
    expect(archive.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));

    expect(await entriesOf(archive)).toEqual(
      [
        { path: 'blob.bin', type: 'File', size: big.length },
        { path: 'données/', type: 'Directory', size: 0 },
        { path: 'données/été.txt', type: 'File', size: Buffer.byteLength('ünïcödé\n') },
        { path: 'empty-dir/', type: 'Directory', size: 0 },
        { path: 'index.html', type: 'File', size: 15 },
        { path: 'link-in', type: 'SymbolicLink', size: 0, linkpath: 'src/app/main.ts' },
        { path: 'src/', type: 'Directory', size: 0 },
        { path: 'src/app/', type: 'Directory', size: 0 },
        { path: 'src/app/main.ts', type: 'File', size: 16 },
        { path: 'src/link-up-inside', type: 'SymbolicLink', size: 0, linkpath: '../index.html' },
      ].sort((a, b) => a.path.localeCompare(b.path)),
    );

    // An independent reader (GNU tar) extracts the same bytes.
    const out = mkdtempSync(join(tmpdir(), 'svc-archive-out-'));
    try {
      writeFileSync(join(out, 'a.tar.gz'), archive);
      mkdirSync(join(out, 'x'));
      execFileSync('tar', ['-xzf', join(out, 'a.tar.gz'), '-C', join(out, 'x')]);
      expect(readFileSync(join(out, 'x', 'blob.bin')).equals(big)).toBe(true);
      expect(readFileSync(join(out, 'x', 'données', 'été.txt'), 'utf8')).toBe('ünïcödé\n');
      expect(readFileSync(join(out, 'x', 'link-in'), 'utf8')).toBe('console.log(1);\n');
      expect(readFileSync(join(out, 'x', 'src', 'link-up-inside'), 'utf8')).toBe('<h1>Hello</h1>\n');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('gives an empty archive for a workspace with no files yet', async () => {
    const { id } = await createWorkflow(server, alice, projectId);
    const res = await server.request(`/svc/api/workflows/${id}/archive`, { as: alice });
    expect(res.status).toBe(200);
    // node-tar's reader refuses an archive without entries; GNU tar lists it as empty.
    const dir = mkdtempSync(join(tmpdir(), 'svc-archive-empty-'));
    try {
      writeFileSync(join(dir, 'a.tar.gz'), Buffer.from(await res.arrayBuffer()));
      expect(execFileSync('tar', ['-tzf', join(dir, 'a.tar.gz')], { encoding: 'utf8' })).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers callers who may not read the workflow with the contract error body', async () => {
    const { id } = await createWorkflow(server, alice, projectId);
    const stranger = await server.login('stranger');
    for (const [as, status, code] of [
      [undefined, 401, 'unauthenticated'],
      [stranger, 404, 'not_found'],
    ] as const) {
      const res = await server.request(`/svc/api/workflows/${id}/archive`, { as });
      expect(res.status).toBe(status);
      expect(await body(res)).toEqual({ error: { code, message: expect.any(String), request_id: expect.any(String) } });
    }
    const missing = await server.request('/svc/api/workflows/nope/archive', { as: alice });
    expect(missing.status).toBe(404);
  });
});
