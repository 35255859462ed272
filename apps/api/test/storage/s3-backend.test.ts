import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../support/server';
import { startGitServer, type GitServer } from '../support/git-server';
import { createProject, createWorkflow } from '../resources/fixtures';
import { traversalPayloads } from '../fixtures/traversal-payloads';
import { STARTER_BRANCHES, TemplateRepoFixture } from '../templates/template-repo-fixture';
import { inPool, rawRequest, startUpload, type RawResponse } from '../files/raw-http';
import { startBackend, type BackendUnderTest } from './backends';

const LIMIT = 1024 * 1024;
const KIB = 1024;
const BIG = 700 * KIB + 5;

// What only the S3 backend must show: limits, archives, templates, project archive and the path rules,
// checked against what the bucket really holds. (The shared behaviour runs on both backends elsewhere.)
describe('S3-compatible storage against a real s3rver', () => {
  let backend: BackendUnderTest;
  let gitRoot: string;
  let git: GitServer;
  let server: TestServer;
  let alice: string;
  let projectId: string;
  let workflowId: string;
  let files: string;
  let storage: string;
  const bucket = () => backend.files(server.dataDir);

  beforeAll(async () => {
    backend = await startBackend('s3');
    gitRoot = mkdtempSync(join(tmpdir(), 'svc-git-'));
    const repo = new TemplateRepoFixture(gitRoot);
    for (const [branch, content] of Object.entries(STARTER_BRANCHES)) repo.commitBranch(branch, content);
    git = await startGitServer(gitRoot);
    server = await startTestServer('sqlite', {
      ...backend.env,
      STORAGE_MAX_UPLOAD_BYTES: String(LIMIT),
      TEMPLATE_REPO_URL: `${git.url}/templates.git`,
      TEMPLATE_LOCAL_PATH: join(gitRoot, 'local', 'templates'),
    });
    alice = await server.login('alice');
    projectId = (await createProject(server, alice)).id;
    workflowId = (await createWorkflow(server, alice, projectId)).id;
    files = `/svc/api/workflows/${workflowId}/files`;
    storage = `/svc/api/projects/${projectId}/storage`;
  });
  afterAll(async () => {
    await server?.close();
    await git?.close();
    await backend?.close();
    rmSync(gitRoot, { recursive: true, force: true });
  });

  const put = (path: string, body: string | Buffer) =>
    rawRequest(server.url, `${files}/${path}`, { method: 'PUT', as: alice, body });

  it('reports the backend in the health check', async () => {
    const res = await server.request('/svc/api/health');
    expect([res.status, await res.json()]).toEqual([
      200,
      expect.objectContaining({ status: 'ok', storage: 'ok', storage_backend: 's3' }),
    ]);
  });

  it('counts a chunked body while streaming: 413, the old object kept, nothing staged left', async () => {
    const old = randomBytes(10 * KIB);
    expect((await rawRequest(server.url, `${storage}/kept.bin`, { method: 'PUT', as: alice, body: old })).status).toBe(
      201,
    );
    const upload = startUpload(server.url, `${storage}/kept.bin`, { as: alice });
    let answered = false;
    void upload.response.then(() => (answered = true));
    for (let sent = 0; sent <= LIMIT && !answered; sent += 64 * KIB) await upload.write(randomBytes(64 * KIB));
    const res = await upload.response;
    expect([res.status, res.json().error.code]).toEqual([413, 'payload_too_large']);
    upload.abort();
    expect((await backend.read(server.dataDir, `storage/${projectId}/kept.bin`))?.equals(old)).toBe(true);
    expect((await bucket()).filter((key) => !key.startsWith('workspaces/'))).toEqual([`storage/${projectId}/kept.bin`]);
  });

  it('streams the workspace as a tar.gz that GNU tar extracts', async () => {
    const big = randomBytes(BIG); // spans several reads, not a multiple of 512
    const longName = `${'deep/'.repeat(30)}file.txt`; // longer than ustar's 100 bytes: a PAX header
    await put('blob.bin', big);
    await put(encodeURI('données/été.txt'), 'ünïcödé\n');
    await put(longName, 'long');
    const res = await server.request(`/svc/api/workflows/${workflowId}/archive`, { as: alice });
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'application/gzip']);
    const out = mkdtempSync(join(tmpdir(), 'svc-s3-archive-'));
    try {
      writeFileSync(join(out, 'a.tar.gz'), Buffer.from(await res.arrayBuffer()));
      mkdirSync(join(out, 'x'));
      execFileSync('tar', ['-xzf', join(out, 'a.tar.gz'), '-C', join(out, 'x')]);
      expect(readFileSync(join(out, 'x', 'blob.bin')).equals(big)).toBe(true);
      expect(readFileSync(join(out, 'x', 'données', 'été.txt'), 'utf8')).toBe('ünïcödé\n');
      expect(readFileSync(join(out, 'x', longName), 'utf8')).toBe('long');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('serves the report and ranges from the bucket', async () => {
    await put('report.md', '# Done\n');
    const report = await server.request(`/svc/api/workflows/${workflowId}/report?format=html`, { as: alice });
    expect(await report.text()).toContain('<h1>Done</h1>');
    const part = await server.request(`${files}/blob.bin`, { as: alice, headers: { range: 'bytes=-2' } });
    expect([part.status, part.headers.get('content-range'), (await part.arrayBuffer()).byteLength]).toEqual([
      206,
      `bytes ${BIG - 2}-${BIG - 1}/${BIG}`,
      2,
    ]);
    const outside = await rawRequest(server.url, `${files}/report.md?raw`, {
      as: alice,
      headers: { range: 'bytes=99-' },
    });
    expect([outside.status, outside.headers['content-range']]).toEqual([416, 'bytes */7']);
  });

  it('copies a template into the workspace objects, refusing what would escape', async () => {
    for (const template of ['react', 'evil']) {
      const res = await server.request(`/svc/api/projects/${projectId}/workflows`, {
        as: alice,
        method: 'POST',
        json: { requirement: 'Build it', template },
      });
      expect(res.status).toBe(201);
      const { id } = (await res.json()) as { id: string };
      const prefix = `workspaces/${projectId}/${id}/`;
      const written = (await bucket()).filter((key) => key.startsWith(prefix)).map((key) => key.slice(prefix.length));
      expect(written).toEqual(
        template === 'react' ? ['README.md', 'bin/dev.sh', 'package.json', 'src/App.tsx'] : ['ok.txt', 'sub/ok2.txt'],
      );
    }
    expect((await bucket()).filter((key) => key.startsWith('OUTSIDE') || key.includes('escaped'))).toEqual([]);
  });

  it('refuses every traversal payload with invalid_path and leaves the bucket as it was', async () => {
    const canary = `svc-canary-${randomBytes(6).toString('hex')}.txt`;
    // Where an escape would land first: beside the workspace, above it, beside the project's storage.
    for (const key of [`workspaces/${projectId}/${canary}`, `workspaces/${canary}`, canary, `storage/${canary}`])
      await backend.plant(server.dataDir, key, 'canary');
    const before = await bucket();
    const routes: ((p: string) => Promise<RawResponse>)[] = [
      (p) => rawRequest(server.url, `${files}/${p}`, { as: alice }),
      (p) => rawRequest(server.url, `${files}/${p}`, { method: 'PUT', as: alice, body: 'pwned' }),
      (p) => rawRequest(server.url, `${storage}/${p}`, { method: 'PUT', as: alice, body: 'pwned' }),
      (p) => rawRequest(server.url, `${storage}/${p}`, { method: 'DELETE', as: alice }),
    ];
    const failures: string[] = [];
    const payloads = traversalPayloads(canary);
    await inPool(
      routes.flatMap((route) => payloads.map((payload) => [route, payload] as const)),
      16,
      async ([route, payload]) => {
        const res = await route(payload);
        const unmatched = res.status === 404 && res.json().error?.message === 'no such endpoint';
        if (!(res.status === 400 && res.json().error?.code === 'invalid_path') && !unmatched)
          failures.push(`${payload} -> ${res.status} ${res.text().slice(0, 120)}`);
      },
    );
    expect(failures).toEqual([]);
    expect(await bucket()).toEqual(before);
  }, 180_000);

  it('moves a deleted project to the archive prefix', async () => {
    const before = (await bucket()).filter(
      (key) => key.startsWith(`workspaces/${projectId}/${workflowId}/`) || key.startsWith(`storage/${projectId}/`),
    );
    const res = await server.request(`/svc/api/projects/${projectId}`, { as: alice, method: 'DELETE' });
    expect(res.status).toBe(204);
    const after = await bucket();
    expect(
      after.filter((key) => key.startsWith(`workspaces/${projectId}/`) || key.startsWith(`storage/${projectId}/`)),
    ).toEqual([]);
    const archived = after.filter((key) => key.startsWith(`archive/${projectId}-`));
    for (const key of before)
      expect(archived.some((a) => a.endsWith(`/${key.split('/')[0]}/${key.split('/').slice(2).join('/')}`))).toBe(true);
    const project = await server.deps.db.project.findUnique({ where: { id: projectId } });
    expect(project?.archive_path).toMatch(new RegExp(`^s3://svc-test/svc-test/archive/${projectId}-`));
  });
});
