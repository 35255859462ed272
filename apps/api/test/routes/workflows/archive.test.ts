import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Parser, type ReadEntry } from 'tar';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../../support/server';
import { body, createProject, createWorkflow } from '../../support/fixtures';
import {
  startBackend,
  PROVIDERS_AND_BACKENDS,
  type BackendName,
  type BackendUnderTest,
} from '../../services/storage/backends';

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

/** Extracts a .tar.gz with GNU tar (an independent reader) into a fresh folder, returned. */
function extractWithGnuTar(archive: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-archive-out-'));
  execFileSync('tar', ['-xzf', '-', '-C', dir], { input: archive });
  return dir;
}

async function putFile(server: TestServer, as: string, id: string, path: string, content: string | Buffer) {
  const res = await server.request(`/svc/api/workflows/${id}/files/${path}`, { method: 'PUT', as, body: content });
  expect(res.status).toBe(201);
}

describe.each(PROVIDERS_AND_BACKENDS)(
  'workspace archive on %s with %s storage',
  (provider, backendName: BackendName) => {
    let backend: BackendUnderTest;
    let server: TestServer;
    let alice: string;
    let projectId: string;

    beforeAll(async () => {
      backend = await startBackend(backendName);
      server = await startTestServer(provider, backend.env);
      alice = await server.login('alice');
      projectId = (await createProject(server, alice)).id;
    });
    afterAll(async () => {
      await server?.close();
      await backend?.close();
    });

    const put = (id: string, path: string, content: string | Buffer) => putFile(server, alice, id, path, content);

    it('streams the workspace as tar.gz that GNU tar extracts: dirs, unicode and PAX-long names, a big file', async () => {
      const { id } = await createWorkflow(server, alice, projectId);
      const big = randomBytes(3 * 1024 * 1024 + 17); // spans several reads, not a multiple of 512
      const longName = `long/${'n'.repeat(150)}.txt`; // longer than ustar's 100 bytes: a PAX header
      await put(id, 'index.html', '<h1>Hello</h1>\n');
      await put(id, 'src/app/main.ts', 'console.log(1);\n');
      await put(id, encodeURI('données/été.txt'), 'ünïcödé\n');
      await put(id, 'blob.bin', big);
      await put(id, longName, 'long');

      const res = await server.request(`/svc/api/workflows/${id}/archive`, { as: alice });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/gzip');
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="workflow-${id}.tar.gz"`);
      const archive = Buffer.from(await res.arrayBuffer());
      expect(archive.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
      expect(await entriesOf(archive)).toEqual(
        [
          { path: 'blob.bin', type: 'File', size: big.length },
          { path: 'long/', type: 'Directory', size: 0 },
          { path: longName, type: 'File', size: 4 },
          { path: 'données/', type: 'Directory', size: 0 },
          { path: 'données/été.txt', type: 'File', size: Buffer.byteLength('ünïcödé\n') },
          { path: 'index.html', type: 'File', size: 15 },
          { path: 'src/', type: 'Directory', size: 0 },
          { path: 'src/app/', type: 'Directory', size: 0 },
          { path: 'src/app/main.ts', type: 'File', size: 16 },
        ].sort((a, b) => a.path.localeCompare(b.path)),
      );

      const out = extractWithGnuTar(archive);
      try {
        expect(readFileSync(join(out, 'blob.bin')).equals(big)).toBe(true);
        expect(readFileSync(join(out, 'données', 'été.txt'), 'utf8')).toBe('ünïcödé\n');
        expect(readFileSync(join(out, longName), 'utf8')).toBe('long');
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
        expect(await body(res)).toEqual({
          error: { code, message: expect.any(String), request_id: expect.any(String) },
        });
      }
      const missing = await server.request('/svc/api/workflows/nope/archive', { as: alice });
      expect(missing.status).toBe(404);
    });
  },
);

// Symlinks, fifos, empty folders and upload temp files exist only on a disk: S3 has none of them.
describe.each(TEST_PROVIDERS)(
  'workspace archive on %s with local storage: disk-only entries (symlinks, fifos, empty folders, temp files; S3 has none)',
  (provider) => {
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

    it('keeps inner relative links and empty folders; leaves out links that leave it, fifos and temp files', async () => {
      const { id } = await createWorkflow(server, alice, projectId);
      await putFile(server, alice, id, 'index.html', '<h1>Hello</h1>\n');
      await putFile(server, alice, id, 'src/app/main.ts', 'console.log(1);\n');
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
      const archive = Buffer.from(await res.arrayBuffer());
      expect(await entriesOf(archive)).toEqual(
        [
          { path: 'empty-dir/', type: 'Directory', size: 0 },
          { path: 'index.html', type: 'File', size: 15 },
          { path: 'link-in', type: 'SymbolicLink', size: 0, linkpath: 'src/app/main.ts' },
          { path: 'src/', type: 'Directory', size: 0 },
          { path: 'src/app/', type: 'Directory', size: 0 },
          { path: 'src/app/main.ts', type: 'File', size: 16 },
          { path: 'src/link-up-inside', type: 'SymbolicLink', size: 0, linkpath: '../index.html' },
        ].sort((a, b) => a.path.localeCompare(b.path)),
      );

      // An independent reader (GNU tar) follows the kept links to the same bytes.
      const out = extractWithGnuTar(archive);
      try {
        expect(readFileSync(join(out, 'link-in'), 'utf8')).toBe('console.log(1);\n');
        expect(readFileSync(join(out, 'src', 'link-up-inside'), 'utf8')).toBe('<h1>Hello</h1>\n');
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    });
  },
);
