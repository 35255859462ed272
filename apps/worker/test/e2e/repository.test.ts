import { advance, plan, scriptedAgent } from '@svc/scripted-llm';
import type { Repository, WorkflowRepository, WorkflowRepositoryDiff } from '@svc/protocol';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EventStream, sshKeyPair, startGitHttpServer, type GitHttpServer, type SshKeyPair } from '@svc/test-kit';
import { E2E_TIMEOUT_MS, startStack, type Stack } from '../support/e2e-stack';

const TOKEN = 'e2e-repo-token-5b1d7e';
const PLAN = ['Write the greeting', 'Add the script'];

/** Each step writes a file, the second also prints the credential's name the agent knows nothing of. */
const agent = scriptedAgent({
  title: 'Greeting in a repository',
  planning: [plan(...PLAN)],
  steps: {
    1: [{ name: 'write_file', arguments: { path: 'greeting.txt', content: 'hello from svc\n' } }, advance()],
    2: [
      { name: 'write_file', arguments: { path: 'src/greet.js', content: "console.log('hello');\n" } },
      // The agent's sandboxed command sees no credential and no git directory of the run.
      { name: 'execute_on_worker', arguments: { command: 'ls -a; env | grep -c SVC_GIT || true' } },
      advance(),
    ],
  },
  report: '# Report\n\nThe greeting is in the repository.',
});

/**
 * Issue 25 (decision 0046) end to end: a repository connected through the API, a run naming it, the real
 * worker cloning it from a real git server (lighttpd + git http-backend with authentication), one commit
 * per step titled as the step and co-authored by the requester, the push, the server's record and diff,
 * the `repository_pushed` event, and a push a protected branch refuses reported, not crashed.
 */
describe('a run in a git repository', () => {
  let stack: Stack;
  let git: GitHttpServer;
  let repository: Repository;
  let keys: string;
  let deployKey: SshKeyPair;

  beforeAll(async () => {
    keys = mkdtempSync(path.join(tmpdir(), 'svc-e2e-keys-'));
    deployKey = sshKeyPair(keys, 'deploy');
    git = await startGitHttpServer({
      sshKeys: [deployKey.publicKey],
      users: { 'x-access-token': TOKEN },
      repos: { site: { files: { 'README.md': '# site\n' } } },
      protectedBranches: ['main', 'svc/*protected*'],
    });
    // The git server listens on loopback, an address the repository's API base URL may not have otherwise.
    stack = await startStack({ handler: agent, apiEnv: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    repository = await stack.alice.json<Repository>(`/projects/${stack.projectId}/repositories`, {
      json: {
        name: 'site',
        url: git.repoUrl('site'),
        forge: 'gitea',
        api_base_url: `${git.url}/api/v1`,
        credential: { kind: 'token', value: TOKEN },
      },
    });
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    await stack?.close();
    await git?.close();
    rmSync(keys, { recursive: true, force: true });
  });

  it(
    'clones, commits each step with its title and the requester as co-author, pushes and reports the branch',
    async () => {
      const { alice } = stack;
      const created = await alice.json<{ id: string; number: number }>(`/projects/${stack.projectId}/workflows`, {
        json: { requirement: 'Add a greeting to the site', repository: { id: repository.id } },
      });
      const branch = `svc/${created.number}-add-a-greeting-to-the-site`;
      const done = await stack.waitForStatus(created.id, 'completed');
      expect(done.status).toBe('completed');

      const record = await alice.json<WorkflowRepository>(`/workflows/${created.id}/repository`);
      expect(record).toMatchObject({
        repository: { id: repository.id, name: 'site', forge: 'gitea' },
        base_branch: 'main',
        branch,
        head_sha: expect.stringMatching(/^[0-9a-f]{40}$/),
        pushed_at: expect.any(String),
        push_error: null,
        pr_url: null,
      });
      expect(git.git('site', ['rev-parse', `refs/heads/${branch}`]).trim()).toBe(record.head_sha);
      const commits = git
        .git('site', ['log', '--format=%an|%s|%(trailers:key=Co-authored-by,valueonly)', `main..${branch}`])
        .trim()
        .split('\n')
        .filter(Boolean)
        .reverse();
      expect(commits).toEqual(PLAN.map((title) => expect.stringMatching(new RegExp(`^svc\\|${title}\\|alice `))));
      expect(git.git('site', ['show', `${branch}:greeting.txt`])).toBe('hello from svc\n');
      expect(git.git('site', ['ls-tree', '-r', '--name-only', branch]).trim().split('\n').sort()).toEqual([
        'README.md',
        'greeting.txt',
        'src/greet.js',
      ]);

      const diff = await alice.json<WorkflowRepositoryDiff>(`/workflows/${created.id}/repository/diff`);
      expect(diff).toMatchObject({ base_branch: 'main', branch, head_sha: record.head_sha, truncated: false });
      expect(diff.patch).toContain("+console.log('hello');");
      expect(diff.patch).toContain('+++ b/greeting.txt');

      const log = await alice.log(created.id);
      const command = log.find((e) => e.tool_name === 'execute_on_worker');
      expect(command?.output).not.toMatch(/\.git\b/);
      expect(command?.output).toMatch(/^0$/m);
      expect(log.filter((e) => e.tool_name === 'git').map((e) => e.is_error)).not.toContain(true);

      // The report (served as a page) ends with the repository section the worker adds.
      const report = await alice.text(`/workflows/${created.id}/files/report.md`);
      expect(report).toContain(`Branch <code>${branch}</code> (base <code>main</code>) was pushed with 2 commits`);

      const sse = await EventStream.open(
        stack.api.url,
        `/svc/api/workflows/${created.id}/events?since_seq=0`,
        alice.cookie,
      );
      try {
        const pushed = await sse.next((e) => e.event === 'repository_pushed', 'the repository_pushed event');
        expect(JSON.parse(pushed.data)).toMatchObject({ data: { branch, pushed: true, error: null, commits: 2 } });
        expect(JSON.stringify(sse.events)).not.toContain(TOKEN);
      } finally {
        sse.close();
      }
      expect(JSON.stringify(log)).not.toContain(TOKEN);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'reports a push a protected branch refuses in the events and the report; the run still completes',
    async () => {
      const { alice } = stack;
      const created = await alice.json<{ id: string; number: number }>(`/projects/${stack.projectId}/workflows`, {
        json: { requirement: 'Write to the protected area', repository: { id: repository.id, base_branch: 'main' } },
      });
      const branch = `svc/${created.number}-write-to-the-protected-area`;
      await stack.waitForStatus(created.id, 'completed');
      const record = await alice.json<WorkflowRepository>(`/workflows/${created.id}/repository`);
      expect(record).toMatchObject({ branch, pushed_at: null, push_error: expect.stringMatching(/Protected branch/) });
      expect(() => git.git('site', ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`])).toThrow();
      const log = await alice.log(created.id);
      expect(log.find((e) => e.tool_name === 'git' && e.is_error)?.output).toMatch(
        new RegExp(`the push of ${branch.replace(/\//g, '\\/')} was rejected: .*Protected branch`, 's'),
      );
      const report = await alice.text(`/workflows/${created.id}/files/report.md`);
      expect(report).toMatch(/was NOT pushed: .*Protected branch/s);
      // The diff is still there: the worker computed it before the push.
      const diff = await alice.json<WorkflowRepositoryDiff>(`/workflows/${created.id}/repository/diff`);
      expect(diff.patch).toContain('+++ b/greeting.txt');
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'a repository whose credential is wrong fails the run with a clear reason, the credential nowhere',
    async () => {
      const { alice } = stack;
      const wrong = 'wrong-e2e-token-99d1';
      const bad = await alice.json<Repository>(`/projects/${stack.projectId}/repositories`, {
        json: {
          name: 'site-bad',
          url: git.repoUrl('site'),
          forge: 'github',
          credential: { kind: 'token', value: wrong },
        },
      });
      // A repository URL the worker has mirrored already: the fetch into the mirror is refused.
      const created = await alice.json<{ id: string }>(`/projects/${stack.projectId}/workflows`, {
        json: { requirement: 'Try with a wrong token', repository: { id: bad.id } },
      });
      const failed = await stack.waitForStatus(created.id, 'failed');
      expect(failed.error).toMatch(/the repository could not be cloned: .*Authentication failed/s);
      expect(JSON.stringify(failed)).not.toContain(wrong);
      const record = await alice.json<WorkflowRepository>(`/workflows/${created.id}/repository`);
      expect(record).toMatchObject({ pushed_at: null, push_error: expect.stringMatching(/Authentication failed/) });
      expect(JSON.stringify(await alice.log(created.id))).not.toContain(wrong);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'works the same with an SSH deploy key: cloned and pushed over SSH, the key in no answer and no log',
    async () => {
      const { alice } = stack;
      const overSsh = await alice.json<Repository>(`/projects/${stack.projectId}/repositories`, {
        json: {
          name: 'site-ssh',
          url: git.sshRepoUrl('site'),
          forge: 'gitea',
          credential: { kind: 'ssh_key', value: deployKey.privateKey },
        },
      });
      expect(JSON.stringify(overSsh)).not.toContain('PRIVATE KEY');
      const created = await alice.json<{ id: string; number: number }>(`/projects/${stack.projectId}/workflows`, {
        json: { requirement: 'Add a greeting over SSH', repository: { id: overSsh.id } },
      });
      await stack.waitForStatus(created.id, 'completed');
      const record = await alice.json<WorkflowRepository>(`/workflows/${created.id}/repository`);
      expect(record).toMatchObject({ push_error: null, pushed_at: expect.any(String) });
      expect(git.git('site', ['rev-parse', `refs/heads/${record.branch}`]).trim()).toBe(record.head_sha);
      expect(git.git('site', ['show', `${record.branch}:greeting.txt`])).toBe('hello from svc\n');
      const keyLine = deployKey.privateKey.split('\n')[1]!;
      expect(JSON.stringify(await alice.log(created.id))).not.toContain(keyLine);
      expect(await alice.text(`/workflows/${created.id}/files/report.md`)).not.toContain(keyLine);
    },
    E2E_TIMEOUT_MS,
  );
});
