import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { startGitServer, type GitServer } from '../support/git-server';
import { createProject } from '../support/fixtures';
import { workflowWorkspaceDir } from '../../src/services/workspace-paths';
import { STARTER_BRANCHES, TemplateRepoFixture } from './template-repo-fixture';

describe.each(TEST_PROVIDERS)('templates from a git repository on %s', (provider) => {
  let gitRoot: string;
  let repo: TemplateRepoFixture;
  let git: GitServer;
  let server: TestServer;
  let alice: string;
  let projectId: string;

  beforeAll(async () => {
    gitRoot = mkdtempSync(join(tmpdir(), 'svc-git-'));
    repo = new TemplateRepoFixture(gitRoot);
    for (const [branch, files] of Object.entries(STARTER_BRANCHES)) repo.commitBranch(branch, files);
    git = await startGitServer(gitRoot);
    server = await startTestServer(provider, {
      TEMPLATE_REPO_URL: `${git.url}/templates.git`,
      TEMPLATE_LOCAL_PATH: join(gitRoot, 'local', 'templates'),
    });
    alice = await server.login('alice');
    projectId = (await createProject(server, alice)).id;
  });
  afterAll(async () => {
    await server?.close();
    await git?.close();
    rmSync(gitRoot, { recursive: true, force: true });
  });

  const workspaceOf = (workflowId: string) => workflowWorkspaceDir(server.dataDir, projectId, workflowId);
  const newWorkflow = async (template?: string) =>
    server.request(`/svc/api/projects/${projectId}/workflows`, {
      as: alice,
      method: 'POST',
      json: { requirement: 'Build it', ...(template ? { template } : {}) },
    });

  it('clones at start-up and lists every remote branch with its README first line', async () => {
    const res = await server.request('/svc/api/templates', { as: alice });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([
      { name: 'evil', description: '' },
      { name: 'evil-backslash', description: '' },
      { name: 'feature/docs', description: 'Documentation site' },
      { name: 'main', description: 'Blank starter' },
      { name: 'react', description: 'Vite + React starter' },
    ]);
    const local = join(gitRoot, 'local', 'templates');
    expect(existsSync(join(local, '.git', 'HEAD'))).toBe(true);
    expect(readdirSync(local)).toEqual(['.git']); // read from git objects, nothing checked out
  });

  it('starts a workflow created with a template with that branch files', async () => {
    const res = await newWorkflow('react');
    expect(res.status).toBe(201);
    const workspace = workspaceOf(((await res.json()) as { id: string }).id);
    expect(readFileSync(join(workspace, 'src/App.tsx'), 'utf8')).toBe('export const App = () => null;\n');
    expect(readFileSync(join(workspace, 'package.json'), 'utf8')).toBe('{"name": "app"}\n');
    expect(statSync(join(workspace, 'bin/dev.sh')).mode & 0o111).not.toBe(0);
    expect(readdirSync(workspace).sort()).toEqual(['README.md', 'bin', 'package.json', 'src']);
    expect((await newWorkflow('no-such-template')).status).toBe(400);
  });

  it('copies a template into an existing workflow (the worker use_template)', async () => {
    const { id } = (await (await newWorkflow()).json()) as { id: string };
    const res = await server.request(`/svc/api/workflows/${id}/template`, {
      as: alice,
      method: 'POST',
      json: { name: 'feature/docs' },
    });
    expect([res.status, await res.json()]).toEqual([200, { name: 'feature/docs' }]);
    expect(readFileSync(join(workspaceOf(id), 'docs/index.md'), 'utf8')).toBe('# Docs\n');
    expect((await server.deps.db.workflow.findUniqueOrThrow({ where: { id } })).template).toBe('feature/docs');
    const unknown = await server.request(`/svc/api/workflows/${id}/template`, {
      as: alice,
      method: 'POST',
      json: { name: 'nope' },
    });
    expect(unknown.status).toBe(404);
    const badBody = await server.request(`/svc/api/workflows/${id}/template`, {
      as: alice,
      method: 'POST',
      json: { name: 'main', extra: 1 },
    });
    expect(badBody.status).toBe(400);
    const mallory = await server.login('mallory');
    expect(
      (
        await server.request(`/svc/api/workflows/${id}/template`, {
          as: mallory,
          method: 'POST',
          json: { name: 'main' },
        })
      ).status,
    ).toBe(404);
  });

  it('refuses template entries that would escape the workspace: .., .git, symlinks', async () => {
    const { id } = (await (await newWorkflow()).json()) as { id: string };
    const workspace = workspaceOf(id);
    const around = readdirSync(dirname(workspace)).sort();
    const res = await server.request(`/svc/api/workflows/${id}/template`, {
      as: alice,
      method: 'POST',
      json: { name: 'evil' },
    });
    expect(res.status).toBe(200);
    expect(readdirSync(workspace).sort()).toEqual(['ok.txt', 'sub']);
    expect(readdirSync(join(workspace, 'sub'))).toEqual(['ok2.txt']);
    expect(readdirSync(dirname(workspace)).sort()).toEqual(around);
    expect(existsSync(join(dirname(workspace), 'escaped.txt'))).toBe(false);
  });

  it('skips a directory whose tree holds a backslash name and copies the rest', async () => {
    const res = await newWorkflow('evil-backslash');
    expect(res.status).toBe(201);
    const workspace = workspaceOf(((await res.json()) as { id: string }).id);
    expect(readdirSync(workspace)).toEqual(['ok.txt']);
  });
});
