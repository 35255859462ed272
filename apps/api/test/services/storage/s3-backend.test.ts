import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../support/server';
import { startGitServer, type GitServer } from '../../support/git-server';
import { createProject, createWorkflow } from '../../support/fixtures';
import { STARTER_BRANCHES, TemplateRepoFixture } from '../template-repo-fixture';
import { rawRequest } from '../../support/raw-http';
import { startBackend, type BackendUnderTest } from './backends';

const KIB = 1024;
const BIG = 700 * KIB + 5;

// What only the S3 backend must show: health, report and ranges, templates and project archive, checked
// against what the bucket really holds. The shared behaviour (limits, archives, the traversal corpus)
// runs on both backends in the files and storage suites.
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

  it('serves the report and ranges from the bucket', async () => {
    await put('blob.bin', randomBytes(BIG));
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

  it('moves a deleted project to the archive prefix', async () => {
    const kept = await rawRequest(server.url, `${storage}/kept.bin`, { method: 'PUT', as: alice, body: 'kept' });
    expect(kept.status).toBe(201);
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
    expect(before).toContain(`storage/${projectId}/kept.bin`);
    for (const key of before)
      expect(archived.some((a) => a.endsWith(`/${key.split('/')[0]}/${key.split('/').slice(2).join('/')}`))).toBe(true);
    const project = await server.deps.db.project.findUnique({ where: { id: projectId } });
    expect(project?.archive_path).toMatch(new RegExp(`^s3://svc-test/svc-test/archive/${projectId}-`));
  });
});
