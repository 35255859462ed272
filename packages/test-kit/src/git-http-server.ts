import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './api-process';
import { INHERITED_PATH } from './env';
import { startGitSshd, type GitSshd } from './git-ssh';
import { eventually, StopWaiting } from './poll';
import { spawnProcess, type ManagedProcess } from './process';

/** A repository to serve: its files, committed on `branch` (default `main`) as one first commit. */
export interface GitRepoSeed {
  files?: Record<string, string>;
  branch?: string;
}

export interface GitHttpServerOptions {
  /** user name -> password (basic authentication; every request needs it, clones included) */
  users: Record<string, string>;
  /** repository name -> its seed; served at `<url>/git/<name>.git` */
  repos: Record<string, GitRepoSeed>;
  /** branches a push may not change (any repository): refused by a pre-receive hook */
  protectedBranches?: readonly string[];
  /** public keys (deploy keys) that may also reach the repositories over SSH: starts sshd beside lighttpd */
  sshKeys?: readonly string[];
}

/** One authenticated request that reached git http-backend (logged before it ran, so never late). */
export interface GitHttpRequest {
  method: string;
  /** e.g. `/app.git/git-upload-pack` */
  path: string;
  query: string;
  /** the authenticated user */
  user: string;
}

export interface GitHttpServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** the clone URL of a repository (no credentials in it) */
  repoUrl(name: string): string;
  /** its `ssh://` clone URL (only with `sshKeys`) */
  sshRepoUrl(name: string): string;
  /** the bare repository's directory */
  dir(name: string): string;
  /** `git <args>` in the bare repository, its output */
  git(name: string, args: string[]): string;
  /**
   * The authenticated requests so far, oldest first. The server speaks git's protocol v0 (it ignores a
   * client's request for v2), so a POST to `git-upload-pack` is a pack download and nothing else.
   */
  requests(): GitHttpRequest[];
  readonly process: ManagedProcess;
  /** Stops lighttpd and removes its directory. */
  close(): Promise<void>;
}

const HTTP_BACKEND = path.join(execFileSync('git', ['--exec-path'], { encoding: 'utf8' }).trim(), 'git-http-backend');
const LIGHTTPD = ['/usr/sbin/lighttpd', '/usr/bin/lighttpd'].find((p) => existsSync(p)) ?? 'lighttpd';

const gitEnv = (home: string): NodeJS.ProcessEnv => ({
  PATH: INHERITED_PATH,
  HOME: home,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Seed',
  GIT_AUTHOR_EMAIL: 'seed@example.test',
  GIT_COMMITTER_NAME: 'Seed',
  GIT_COMMITTER_EMAIL: 'seed@example.test',
  LC_ALL: 'C',
});

/** A pre-receive hook that refuses any update of the protected branches, as a forge's branch protection does. */
const preReceiveHook = (branches: readonly string[]) => `#!/bin/sh
status=0
while read old new ref; do
  case "$ref" in
${branches.map((b) => `    refs/heads/${b}) echo "error: GH006: Protected branch update failed for refs/heads/${b}." >&2; status=1 ;;`).join('\n')}
  esac
done
exit $status
`;

/**
 * A real git smart-HTTP server: Debian's lighttpd running `git http-backend` as a CGI program, with basic
 * authentication on every request (mod_auth, a plain user file) and branch protection by a pre-receive
 * hook; with `sshKeys`, the same repositories over SSH too (Debian's sshd, see git-ssh.ts). Each
 * repository starts as one commit of its seed files. Resolves once lighttpd answers.
 */
export async function startGitHttpServer(options: GitHttpServerOptions): Promise<GitHttpServer> {
  const root = mkdtempSync(path.join(tmpdir(), 'svc-git-http-'));
  const reposDir = path.join(root, 'repos');
  const home = path.join(root, 'home');
  mkdirSync(reposDir);
  mkdirSync(home);
  mkdirSync(path.join(root, 'www'));
  const env = gitEnv(home);
  for (const [name, seed] of Object.entries(options.repos)) seedRepo(reposDir, name, seed, env, options);
  writeFileSync(
    path.join(root, 'users'),
    Object.entries(options.users)
      .map(([user, password]) => `${user}:${password}`)
      .join('\n') + '\n',
  );
  const port = await freePort();
  const requestLog = path.join(root, 'requests.log');
  const backend = path.join(root, 'backend.sh');
  writeFileSync(
    backend,
    `#!/bin/sh
printf '%s\\t%s\\t%s\\t%s\\n' "$REQUEST_METHOD" "$PATH_INFO" "$QUERY_STRING" "$REMOTE_USER" >> ${JSON.stringify(requestLog)}
unset GIT_PROTOCOL HTTP_GIT_PROTOCOL
exec ${JSON.stringify(HTTP_BACKEND)}
`,
  );
  chmodSync(backend, 0o755);
  writeFileSync(path.join(root, 'lighttpd.conf'), lighttpdConfig(root, reposDir, port, backend));
  const child = spawnProcess('lighttpd', LIGHTTPD, ['-D', '-f', path.join(root, 'lighttpd.conf')], {
    cwd: root,
    env: { PATH: INHERITED_PATH, HOME: home },
  });
  const url = `http://127.0.0.1:${port}`;
  let sshd: GitSshd | null = null;
  const close = async () => {
    await Promise.all([child.stop('SIGTERM'), sshd?.process.stop('SIGTERM')]);
    rmSync(root, { recursive: true, force: true });
  };
  try {
    if (options.sshKeys) sshd = await startGitSshd(root, options.sshKeys);
    await eventually(
      async () => {
        if (child.exit) throw new StopWaiting(`lighttpd exited (${JSON.stringify(child.exit)})\n${child.tail()}`);
        const res = await fetch(`${url}/git/`).catch(() => null);
        return res !== null;
      },
      { what: 'lighttpd to answer', detail: () => child.tail() },
    );
  } catch (error) {
    await close();
    throw error;
  }
  return {
    url,
    repoUrl: (name) => `${url}/git/${name}.git`,
    sshRepoUrl: (name) => {
      if (!sshd) throw new Error('the git server was started without sshKeys');
      return `ssh://${sshd.user}@127.0.0.1:${sshd.port}${path.join(reposDir, `${name}.git`)}`;
    },
    dir: (name) => path.join(reposDir, `${name}.git`),
    git: (name, args) => execFileSync('git', args, { cwd: path.join(reposDir, `${name}.git`), env, encoding: 'utf8' }),
    requests: () => (existsSync(requestLog) ? parseRequestLog(readFileSync(requestLog, 'utf8')) : []),
    process: child,
    close,
  };
}

function seedRepo(
  reposDir: string,
  name: string,
  seed: GitRepoSeed,
  env: NodeJS.ProcessEnv,
  options: GitHttpServerOptions,
): void {
  const bare = path.join(reposDir, `${name}.git`);
  const branch = seed.branch ?? 'main';
  const work = mkdtempSync(path.join(tmpdir(), 'svc-git-seed-'));
  try {
    const files = seed.files ?? { 'README.md': `# ${name}\n` };
    for (const [file, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
      writeFileSync(path.join(work, file), content);
    }
    const git = (args: string[], cwd = work) => execFileSync('git', args, { cwd, env, stdio: 'pipe' });
    git(['init', '--quiet', '-b', branch]);
    git(['add', '--all']);
    git(['commit', '--quiet', '-m', 'Initial commit']);
    git(['clone', '--quiet', '--bare', work, bare], reposDir);
    git(['config', 'http.receivepack', 'true'], bare);
    if (options.protectedBranches?.length) {
      const hook = path.join(bare, 'hooks', 'pre-receive');
      writeFileSync(hook, preReceiveHook(options.protectedBranches));
      chmodSync(hook, 0o755);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function lighttpdConfig(root: string, reposDir: string, port: number, backend: string): string {
  const q = (value: string) => JSON.stringify(value);
  return `server.modules = ( "mod_alias", "mod_auth", "mod_authn_file", "mod_cgi", "mod_setenv" )
server.document-root = ${q(path.join(root, 'www'))}
server.bind = "127.0.0.1"
server.port = ${port}
server.errorlog = ${q(path.join(root, 'error.log'))}
auth.backend = "plain"
auth.backend.plain.userfile = ${q(path.join(root, 'users'))}
alias.url = ( "/git" => ${q(backend)} )
$HTTP["url"] =~ "^/git" {
  cgi.assign = ( "" => "" )
  setenv.add-environment = (
    "GIT_PROJECT_ROOT" => ${q(reposDir)},
    "GIT_HTTP_EXPORT_ALL" => "1",
    "GIT_CONFIG_NOSYSTEM" => "1",
    "HOME" => ${q(path.join(root, 'home'))}
  )
  auth.require = ( "" => ( "method" => "basic", "realm" => "git", "require" => "valid-user" ) )
}
`;
}

function parseRequestLog(text: string): GitHttpRequest[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [method = '', path = '', query = '', user = ''] = line.split('\t');
      return { method, path, query, user };
    });
}
