import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { startGitServer, type GitServer } from '../support/git-server';
import { GitTemplateCatalog } from '../../src/services/template-repo';
import { templateDescriptionCache } from '../../src/caches';
import { LocalArea } from '../../src/services/storage/local';
import { readRemoteRefs } from '../../src/services/template-git';
import { STARTER_BRANCHES, TemplateRepoFixture } from './template-repo-fixture';

// The catalog on its own (no database involved): a fetch whose connection dies after the refs moved.
describe('a template fetch that dies half-way', () => {
  let root: string;
  let repo: TemplateRepoFixture;
  let git: GitServer;
  let localPath: string;
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  const catalogAt = () =>
    new GitTemplateCatalog({ repoUrl: `${git.url}/templates.git`, localPath }, logger, templateDescriptionCache());

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'svc-git-broken-'));
    repo = new TemplateRepoFixture(root);
    repo.commitBranch('main', STARTER_BRANCHES.main);
    repo.commitBranch('react', STARTER_BRANCHES.react);
    git = await startGitServer(root);
    localPath = join(root, 'local');
  });
  afterAll(async () => {
    await git?.close();
    rmSync(root, { recursive: true, force: true });
  });

  const summary = async (catalog: GitTemplateCatalog) =>
    (await catalog.list()).map((t) => `${t.name}: ${t.description}`);

  it('keeps serving the previous branches, leaves no ref to a missing commit, and recovers on the next fetch', async () => {
    const catalog = catalogAt();
    expect(await catalog.sync()).toEqual({ action: 'clone', ok: true });
    repo.commitBranch('vue', { 'README.md': '# Vue starter\n', 'app.vue': '<template />\n' });
    repo.commitBranch('main', { 'README.md': '# New main\n' });

    git.breakPackDownloads = true;
    expect(await catalog.sync()).toMatchObject({ action: 'fetch', ok: false });
    expect(
      lines.some((line) => JSON.parse(line).msg === 'template repository sync failed; serving the local copy'),
    ).toBe(true);
    expect(await summary(catalog)).toEqual(['main: Blank starter', 'react: Vite + React starter']);
    const target = mkdtempSync(join(root, 'ws-'));
    await catalog.materialize('main', new LocalArea(target));
    expect(readFileSync(join(target, 'README.md'), 'utf8')).toBe(STARTER_BRANCHES.main['README.md']);

    const restarted = catalogAt(); // what a server restart would read from disk
    expect(await summary(restarted)).toEqual(['main: Blank starter', 'react: Vite + React starter']);
    const refs = await readRemoteRefs(localPath);
    expect([...refs.keys()].sort()).toEqual(['HEAD', 'main', 'react']);

    git.breakPackDownloads = false;
    expect(await restarted.sync()).toEqual({ action: 'fetch', ok: true });
    expect(await summary(restarted)).toEqual(['main: New main', 'react: Vite + React starter', 'vue: Vue starter']);
    const vue = mkdtempSync(join(root, 'ws-'));
    await restarted.materialize('vue', new LocalArea(vue));
    expect(readFileSync(join(vue, 'app.vue'), 'utf8')).toBe('<template />\n');
  });
});
