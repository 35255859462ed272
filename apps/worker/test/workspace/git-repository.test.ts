import { randomBytes } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sshKeyPair, startGitHttpServer, type GitHttpServer, type SshKeyPair } from '@svc/test-kit';
import type { DispatchRepository } from '@svc/protocol';
import { pruneGitCache } from '../../src/workspace/git-cache';
import { RunRepository } from '../../src/workspace/git-repository';

const DAY_MS = 24 * 60 * 60 * 1000;

/** A run's repository as the server dispatches it: the service as author, alice as co-author. */
const dispatchedRepository = (
  url: string,
  branch: string,
  credential: DispatchRepository['credential'],
  overrides: Partial<DispatchRepository> = {},
): DispatchRepository => ({
  url,
  base_branch: 'main',
  branch,
  credential,
  author: { name: 'svc', email: 'svc@users.noreply.svc' },
  co_author: { name: 'Alice Example', email: 'alice@example.test' },
  ...overrides,
});

const TOKEN = 'repo-token-7f3a9c2e';
const USER = 'x-access-token';

/**
 * The worker's git side (decision 0046) against a real git smart-HTTP server: Debian's lighttpd running
 * `git http-backend`, basic authentication on every request, `main` protected by a pre-receive hook.
 */
describe('a run repository against lighttpd + git http-backend', () => {
  let server: GitHttpServer;
  let scratch: string;
  let cacheRoot: string;

  beforeAll(async () => {
    server = await startGitHttpServer({
      users: { [USER]: TOKEN },
      repos: {
        app: {
          files: {
            'README.md': '# app\n',
            'src/index.js': 'console.log(1);\n',
            // incompressible: a clone that downloads it shows in the bytes the server sent
            'assets/blob.txt': randomBytes(192 * 1024).toString('base64'),
          },
        },
      },
      protectedBranches: ['main'],
    });
    scratch = mkdtempSync(path.join(tmpdir(), 'svc-git-run-'));
    cacheRoot = path.join(scratch, 'workspaces', '.svc-git');
  });
  afterAll(async () => {
    await server?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  const dispatched = (branch: string, overrides: Partial<DispatchRepository> = {}): DispatchRepository =>
    dispatchedRepository(server.repoUrl('app'), branch, { kind: 'token', value: TOKEN }, overrides);

  const runRepository = (workflowId: string, repository: DispatchRepository) => {
    const workspace = path.join(scratch, 'workspaces', workflowId);
    return {
      workspace,
      repo: new RunRepository({ workflowId, workspace, cacheRoot, repository, exclude: ['report.md'] }),
    };
  };

  /** Pack downloads so far (the server speaks protocol v0: an upload-pack POST is a pack). */
  const packDownloads = () =>
    server.requests().filter((r) => r.method === 'POST' && r.path.endsWith('/git-upload-pack')).length;

  it('clones through the mirror cache, commits each step with its title and co-author, and pushes the branch', async () => {
    const { workspace, repo } = runRepository('run-1', dispatched('svc/1-add-a-greeting'));
    const prepared = await repo.prepare(true);
    expect(packDownloads()).toBe(1);
    expect(prepared).toMatchObject({ mirror: 'created', branchExisted: false });
    expect(readFileSync(path.join(workspace, 'src/index.js'), 'utf8')).toBe('console.log(1);\n');
    // The run's git directory is outside the workspace: a sandboxed command never sees or changes it.
    expect(() => statSync(path.join(workspace, '.git'))).toThrow();

    writeFileSync(path.join(workspace, 'greeting.txt'), 'hello\n');
    writeFileSync(path.join(workspace, 'report.md'), '# the worker’s own report, never committed\n');
    expect(await repo.commitStep('Write the greeting')).toMatch(/^[0-9a-f]{40}$/);
    expect(await repo.commitStep('Nothing changed here')).toBeNull();
    writeFileSync(path.join(workspace, 'src/index.js'), 'console.log(2);\n');
    await repo.commitStep('Change the script');

    const report = await repo.push();
    expect(report).toMatchObject({
      branch: 'svc/1-add-a-greeting',
      base_branch: 'main',
      pushed: true,
      error: null,
      commits: 2,
      diff_truncated: false,
    });
    expect(report.diff).toContain('+++ b/greeting.txt');
    expect(report.diff).toContain('+console.log(2);');
    expect(report.diff).not.toContain('report.md');

    // What the server has: the branch at the pushed head, two commits on main's, authored by the service.
    expect(server.git('app', ['rev-parse', 'refs/heads/svc/1-add-a-greeting']).trim()).toBe(report.head_sha);
    const log = server.git('app', ['log', '--format=%an <%ae>|%cn|%B%x00', 'main..svc/1-add-a-greeting']);
    const commits = log
      .split('\0')
      .map((c) => c.trim())
      .filter(Boolean);
    expect(commits).toEqual([
      'svc <svc@users.noreply.svc>|svc|Change the script\n\nCo-authored-by: Alice Example <alice@example.test>',
      'svc <svc@users.noreply.svc>|svc|Write the greeting\n\nCo-authored-by: Alice Example <alice@example.test>',
    ]);
    expect(server.git('app', ['ls-tree', '-r', '--name-only', 'svc/1-add-a-greeting']).split('\n')).not.toContain(
      'report.md',
    );
    // Every request that reached git was authenticated, none had the credential in its URL.
    expect(server.requests().every((r) => r.user === USER)).toBe(true);
    expect(server.requests().some((r) => `${r.path}?${r.query}`.includes(TOKEN))).toBe(false);
  });

  it('a second clone of the repository uses the mirror: no pack download when nothing changed, nothing copied', async () => {
    // run-1's push is new to the mirror: run-2's update downloads it (one small pack) ...
    const first = runRepository('run-2', dispatched('svc/2-second'));
    expect(await first.repo.prepare(true)).toMatchObject({ mirror: 'updated' });
    const afterUpdate = packDownloads();
    // ... and run-3 downloads nothing: the mirror is current, its clone comes from the mirror.
    const { workspace, repo } = runRepository('run-3', dispatched('svc/3-third'));
    expect(await repo.prepare(true)).toMatchObject({ mirror: 'updated' });
    expect(packDownloads()).toBe(afterUpdate);
    expect(readFileSync(path.join(workspace, 'README.md'), 'utf8')).toBe('# app\n');
    expect(readFileSync(path.join(workspace, 'assets/blob.txt'), 'utf8')).toHaveLength(262144);
    // The run's git directory borrows the mirror's objects: no pack of its own.
    const packs = path.join(cacheRoot, 'runs', 'run-3.git', 'objects', 'pack');
    expect(readdirSync(packs).filter((f) => f.endsWith('.pack'))).toEqual([]);
    expect(readFileSync(path.join(cacheRoot, 'runs', 'run-3.git', 'objects', 'info', 'alternates'), 'utf8')).toBe(
      `${repo.mirrorDir}/objects\n`,
    );
  });

  it('continues a pushed branch in a workspace that came back from the server (another worker)', async () => {
    // run-1's branch was pushed; a fresh cache (another worker) and the workspace files as the server has them.
    const otherCache = path.join(scratch, 'other-worker', '.svc-git');
    const workspace = path.join(scratch, 'other-worker', 'run-1');
    const repo = new RunRepository({
      workflowId: 'run-1',
      workspace,
      cacheRoot: otherCache,
      repository: dispatched('svc/1-add-a-greeting'),
    });
    const fromServer = { 'README.md': '# app\n', 'src/index.js': 'console.log(2);\n', 'greeting.txt': 'hello again\n' };
    for (const [file, text] of Object.entries(fromServer)) {
      mkdirSync(path.dirname(path.join(workspace, file)), { recursive: true });
      writeFileSync(path.join(workspace, file), text);
    }
    const prepared = await repo.prepare(false);
    expect(prepared.branchExisted).toBe(true);
    expect(readFileSync(path.join(workspace, 'greeting.txt'), 'utf8')).toBe('hello again\n');
    await repo.commitStep('Revise the greeting');
    const report = await repo.push();
    expect(report).toMatchObject({ pushed: true });
    expect(server.git('app', ['log', '-1', '--format=%s', 'svc/1-add-a-greeting']).trim()).toBe('Revise the greeting');
  });

  it('reports a push to a protected branch as rejected, with the server’s reason, and does not throw', async () => {
    const { workspace, repo } = runRepository('run-5', dispatched('main'));
    await repo.prepare(true);
    writeFileSync(path.join(workspace, 'direct.txt'), 'straight to main\n');
    await repo.commitStep('Commit straight to main');
    const report = await repo.push();
    expect(report).toMatchObject({ branch: 'main', pushed: false, head_sha: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(report.error).toMatch(/Protected branch update failed for refs\/heads\/main/);
    expect(report.error).toMatch(/pre-receive hook declined/);
    expect(server.git('app', ['log', '-1', '--format=%s', 'main']).trim()).toBe('Initial commit');
  });

  it('prunes run git directories and mirrors unused past the age, never one a run holds or borrows from', async () => {
    const root = path.join(scratch, 'prune', '.svc-git');
    const old = new Date(Date.now() - 40 * DAY_MS);
    const make = (workflowId: string, url: string) =>
      new RunRepository({
        workflowId,
        workspace: path.join(scratch, 'prune', workflowId),
        cacheRoot: root,
        repository: dispatched(`svc/${workflowId}`, { url }),
      });
    // three runs on two repositories (the second URL is the same repository, another mirror)
    const failed = make('p-failed', server.repoUrl('app'));
    const active = make('p-active', `${server.repoUrl('app')}/`);
    const finished = make('p-finished', server.repoUrl('app'));
    for (const repo of [failed, active, finished]) await repo.prepare(true);
    await finished.dispose();
    failed.release();
    // everything looks 40 days old; `active` is still held by its run
    for (const dir of [failed.gitDir, active.gitDir, failed.mirrorDir, active.mirrorDir]) utimesSync(dir, old, old);

    // the failed run's directory goes, and with it the last user of its mirror; the active run keeps both
    expect(await pruneGitCache(root, 30 * DAY_MS)).toEqual({
      runs: ['p-failed.git'],
      mirrors: [path.basename(failed.mirrorDir)],
    });
    expect(readdirSync(path.join(root, 'mirrors'))).toEqual([path.basename(active.mirrorDir)]);
    // once the active run is released (and old), its directory and mirror go too
    active.release();
    expect(await pruneGitCache(root, 30 * DAY_MS)).toEqual({
      runs: ['p-active.git'],
      mirrors: [path.basename(active.mirrorDir)],
    });
    expect(readdirSync(path.join(root, 'mirrors'))).toEqual([]);
    // a fresh run clones again
    expect(await make('p-again', server.repoUrl('app')).prepare(true)).toMatchObject({ mirror: 'created' });
    // a mirror fetched into today is young again, whatever its age before
    const again = make('p-again-2', server.repoUrl('app'));
    utimesSync(again.mirrorDir, old, old);
    await again.prepare(true);
    again.release();
    expect((await pruneGitCache(root, 30 * DAY_MS)).mirrors).toEqual([]);
  });

  it('fails the clone with bad credentials, without the credential in the error', async () => {
    const wrong = 'wrong-token-1234567';
    const { repo } = runRepository(
      'run-6',
      dispatched('svc/6-bad', {
        url: server.repoUrl('app'),
        credential: { kind: 'token', value: wrong },
      }),
    );
    // A cache of its own: the shared mirror exists already and would only be fetched into.
    const fresh = new RunRepository({
      workflowId: 'run-6',
      workspace: path.join(scratch, 'bad', 'run-6'),
      cacheRoot: path.join(scratch, 'bad', '.svc-git'),
      repository: dispatched('svc/6-bad', { credential: { kind: 'token', value: wrong } }),
    });
    const error = await fresh.prepare(true).then(
      () => null,
      (err: Error) => err,
    );
    expect(error?.message).toMatch(/Authentication failed/);
    expect(error?.message).not.toContain(wrong);
    // With the mirror in place, the fetch into it is refused the same way.
    await expect(repo.prepare(true)).rejects.toThrow(/Authentication failed/);
  });
});

/**
 * An SSH deploy key (decision 0046): the same repositories over Debian's sshd, where only the deploy
 * key's public half logs in and is held to git-shell. The key reaches git as a 0600 file named in
 * GIT_SSH_COMMAND and is removed after each git call.
 */
describe('a run repository over SSH with a deploy key', () => {
  let server: GitHttpServer;
  let scratch: string;
  let deployKey: SshKeyPair;
  let otherKey: SshKeyPair;

  beforeAll(async () => {
    scratch = mkdtempSync(path.join(tmpdir(), 'svc-git-ssh-'));
    deployKey = sshKeyPair(scratch, 'deploy');
    otherKey = sshKeyPair(scratch, 'other');
    server = await startGitHttpServer({
      users: { [USER]: TOKEN },
      repos: { app: { files: { 'README.md': '# app over ssh\n' } } },
      protectedBranches: ['main'],
      sshKeys: [deployKey.publicKey],
    });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  const overSsh = (workflowId: string, branch: string, privateKey: string) => {
    const workspace = path.join(scratch, 'workspaces', workflowId);
    const cacheRoot = path.join(scratch, `cache-${workflowId}`, '.svc-git');
    const repository = dispatchedRepository(server.sshRepoUrl('app'), branch, { kind: 'ssh_key', value: privateKey });
    return { workspace, cacheRoot, repo: new RunRepository({ workflowId, workspace, cacheRoot, repository }) };
  };

  it('clones, commits and pushes with the deploy key; the key file does not outlive the git call', async () => {
    const { workspace, cacheRoot, repo } = overSsh('ssh-1', 'svc/1-over-ssh', deployKey.privateKey);
    expect(await repo.prepare(true)).toMatchObject({ mirror: 'created', branchExisted: false });
    expect(readFileSync(path.join(workspace, 'README.md'), 'utf8')).toBe('# app over ssh\n');
    writeFileSync(path.join(workspace, 'ssh.txt'), 'pushed over ssh\n');
    await repo.commitStep('Write over SSH');
    const report = await repo.push();
    expect(report).toMatchObject({ pushed: true, error: null, commits: 1 });
    expect(server.git('app', ['show', 'svc/1-over-ssh:ssh.txt'])).toBe('pushed over ssh\n');
    expect(server.git('app', ['rev-parse', 'svc/1-over-ssh']).trim()).toBe(report.head_sha);
    // only the host key learnt on first use remains beside the credentials
    const left = readdirSync(path.join(cacheRoot, 'credentials'));
    expect(left.filter((f) => f.startsWith('key-'))).toEqual([]);
    expect(JSON.stringify(report)).not.toContain(deployKey.privateKey.split('\n')[1]);
  });

  it('a protected branch refuses the push over SSH as over HTTP', async () => {
    const { workspace, repo } = overSsh('ssh-2', 'main', deployKey.privateKey);
    await repo.prepare(true);
    writeFileSync(path.join(workspace, 'direct.txt'), 'straight to main\n');
    await repo.commitStep('Commit straight to main');
    const report = await repo.push();
    expect(report).toMatchObject({ pushed: false });
    expect(report.error).toMatch(/Protected branch update failed for refs\/heads\/main/);
  });

  it('a key the server does not know fails the clone with a clear reason, the key nowhere in it', async () => {
    const { repo } = overSsh('ssh-3', 'svc/3-wrong-key', otherKey.privateKey);
    const error = await repo.prepare(true).then(
      () => null,
      (err: Error) => err,
    );
    expect(error?.message).toMatch(/Permission denied \(publickey\)/);
    expect(error?.message).not.toContain(otherKey.privateKey.split('\n')[1]);
  });
});
