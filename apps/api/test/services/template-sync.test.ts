import { eventually } from '@svc/test-kit';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { startGitServer, type GitServer } from '../support/git-server';
import { GitTemplateCatalog } from '../../src/services/template-repo';
import { templateDescriptionCache } from '../../src/caches';
import { STARTER_BRANCHES, TemplateRepoFixture } from './template-repo-fixture';

const namesOf = async (server: TestServer, as: string) =>
  ((await (await server.request('/svc/api/templates', { as })).json()) as { name: string }[]).map((t) => t.name);

/** A TCP server that accepts connections and never answers: a git host that hangs. */
async function startSilentServer(): Promise<{ url: string; connections(): number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/templates.git`,
    connections: () => sockets.size,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe.each(TEST_PROVIDERS)('keeping the template clone in sync on %s', (provider) => {
  let gitRoot: string;
  let repo: TemplateRepoFixture;
  let git: GitServer;
  let localPath: string;
  let repoUrl: string;

  beforeAll(async () => {
    gitRoot = mkdtempSync(join(tmpdir(), 'svc-git-sync-'));
    repo = new TemplateRepoFixture(gitRoot);
    for (const branch of ['main', 'react', 'feature/docs'] as const)
      repo.commitBranch(branch, STARTER_BRANCHES[branch]);
    git = await startGitServer(gitRoot);
    localPath = join(gitRoot, 'local', 'templates');
    repoUrl = `${git.url}/templates.git`;
  });
  afterAll(async () => {
    await git?.close();
    rmSync(gitRoot, { recursive: true, force: true });
  });

  const serve = (url: string) => startTestServer(provider, { TEMPLATE_REPO_URL: url, TEMPLATE_LOCAL_PATH: localPath });

  it('clones on the first start, and a later start fetches new branches and prunes deleted ones', async () => {
    const first = await serve(repoUrl);
    expect(await namesOf(first, await first.login('alice'))).toEqual(['feature/docs', 'main', 'react']);
    await first.close();

    repo.commitBranch('vue', { 'README.md': '# Vue starter\n' });
    repo.deleteBranch('feature/docs');
    repo.commitBranch('react', { ...STARTER_BRANCHES.react, 'README.md': '# React 19 starter\n' });
    const second = await serve(repoUrl);
    const alice = await second.login('alice');
    await eventually(async () => (await namesOf(second, alice)).includes('vue'));
    const templates = await (await second.request('/svc/api/templates', { as: alice })).json();
    expect(templates).toEqual([
      { name: 'main', description: 'Blank starter' },
      { name: 'react', description: 'React 19 starter' },
      { name: 'vue', description: 'Vue starter' },
    ]);
    await second.close();
  });

  it('serves the local copy when the server is unreachable, and logs the failure', async () => {
    const deadUrl = `http://127.0.0.1:1/templates.git`;
    const server = await serve(deadUrl);
    expect(await namesOf(server, await server.login('alice'))).toEqual(['main', 'react', 'vue']);
    await server.close();

    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const catalog = new GitTemplateCatalog({ repoUrl: deadUrl, localPath }, logger, templateDescriptionCache());
    expect(await catalog.sync()).toMatchObject({ action: 'fetch', ok: false });
    const failure = lines.map((line) => JSON.parse(line)).find((entry) => entry.level === 50);
    expect(failure).toMatchObject({ msg: 'template repository sync failed; serving the local copy', action: 'fetch' });
    expect(failure.err.message).toMatch(/ECONNREFUSED|connect/);
    expect((await catalog.list()).map((t) => t.name)).toEqual(['main', 'react', 'vue']);
  });

  it('never holds up start-up on a git host that hangs', async () => {
    const silent = await startSilentServer();
    const server = await startTestServer(provider, {
      TEMPLATE_REPO_URL: silent.url,
      TEMPLATE_LOCAL_PATH: join(gitRoot, 'never-cloned'),
    });
    // The clone is under way and cannot finish while the host stays silent, yet the server answers.
    await eventually(() => silent.connections() > 0);
    const health = await server.request('/svc/api/health');
    expect(health.status).toBe(200);
    await silent.close(); // the pending clone fails now, so shutdown does not wait for it
    await server.close();
  });

  it('lists no templates when no repository is configured', async () => {
    const server = await startTestServer(provider);
    const alice = await server.login('alice');
    expect(await namesOf(server, alice)).toEqual([]);
    await server.close();
  });
});
