import { advance, plan, scriptedAgent } from '@svc/scripted-llm';
import { startGitHttpServer, type GitHttpServer } from '@svc/test-kit';
import { E2E_TIMEOUT_MS, startStack, type CliStack } from '../support/stack';

const TOKEN = 'tok-cli-repo-6f2a91';

// Issue 25: `svc repo add|list|remove` (the credential only from stdin) and `svc run --repo --base` against a
// real server, worker and git server (lighttpd + git http-backend).
describe('svc repo and svc run --repo with a real server and git server', () => {
  let stack: CliStack;
  let git: GitHttpServer;
  beforeAll(async () => {
    git = await startGitHttpServer({
      users: { 'x-access-token': TOKEN },
      repos: { site: { files: { 'README.md': '# site\n' } } },
    });
    git.git('site', ['branch', 'develop', 'main']);
    stack = await startStack(
      scriptedAgent({
        title: 'Notes',
        planning: [plan('Write the notes')],
        steps: { 1: [{ name: 'write_file', arguments: { path: 'NOTES.md', content: 'notes\n' } }, advance()] },
        report: '# Report\n\nNotes written.',
      }),
      // The git server listens on loopback, an address the repository's API base URL may not have otherwise.
      { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
    );
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    await stack?.close();
    await git?.close();
  });

  const svc = (args: string[], expected = 0, input?: string) =>
    stack.svcExiting(args, expected, input === undefined ? {} : { input });

  it(
    'adds a repository with its token from stdin, lists it, runs in it on a base branch, removes it',
    async () => {
      const added = await svc(
        ['repo', 'add', 'site', git.repoUrl('site'), '--forge', 'gitea', '-p', 'ci'],
        0,
        `${TOKEN}\n`,
      );
      expect(added.stdout).toMatch(
        /^connected repository site \(\S+\)\nforge webhook: \S+\nwebhook secret \(shown once\): [0-9a-f]{64}\n$/,
      );
      // no forge, or a second repository of the name: refused
      await svc(['repo', 'add', 'other', git.repoUrl('site'), '-p', 'ci'], 2, `${TOKEN}\n`);
      await svc(['repo', 'add', 'site', git.repoUrl('site'), '--forge', 'gitea', '-p', 'ci'], 1, `${TOKEN}\n`);
      const listed = await svc(['repo', 'list', '-p', 'ci']);
      expect(listed.stdout).toBe(`site  gitea   main  ${git.repoUrl('site')}  token\n`);
      const json = JSON.parse((await svc(['--json', 'repo', 'ls', '-p', 'ci'])).stdout);
      expect(json).toEqual([expect.objectContaining({ name: 'site', forge: 'gitea', credential_kind: 'token' })]);
      for (const out of [added.stdout, listed.stdout, JSON.stringify(json)]) expect(out).not.toContain(TOKEN);

      await svc(['run', 'Write the notes', '-p', 'ci', '--base', 'develop'], 2); // --base needs --repo
      await svc(['run', 'Write the notes', '-p', 'ci', '--repo', 'nope'], 2);
      const run = await svc([
        '--json',
        'run',
        'Write the notes',
        '-p',
        'ci',
        '--repo',
        'site',
        '--base',
        'develop',
        '--follow',
      ]);
      const lines = run.stdout.trim().split('\n');
      expect(run.stdout).toContain('completed');
      expect(lines.length).toBeGreaterThan(0);
      const branches = git.git('site', ['for-each-ref', '--format=%(refname:short)', 'refs/heads/svc']).trim();
      expect(branches).toMatch(/^svc\/\d+-write-the-notes$/);
      expect(git.git('site', ['log', '--format=%s', `develop..${branches}`]).trim()).toBe('Write the notes');

      expect((await svc(['repo', 'remove', 'site', '-p', 'ci'])).stdout).toBe('removed repository site\n');
      expect((await svc(['repo', 'list', '-p', 'ci'])).stdout).toBe('');
      await svc(['repo', 'rm', 'site', '-p', 'ci'], 2);
    },
    E2E_TIMEOUT_MS,
  );
});
