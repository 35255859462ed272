import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { access, appendFile, chmod, mkdir, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPOSITORY_DIFF_MAX_BYTES, type DispatchRepository, type RepositoryUpdateData } from '@svc/protocol';
import { truncateUtf8 } from '@svc/text';
import { workerPath } from '../env';
import { holdGitDirs, releaseGitDirs } from './git-cache';

/**
 * A run's git repository (decision 0046), worked by the worker process itself with the system `git`:
 * never inside the command sandbox, never seen by the agent.
 *
 * - A per-worker mirror cache (`<cacheRoot>/mirrors/<hash of the URL>.git`, `git clone --mirror`, then
 *   `git fetch` into it) holds the objects; a run's git directory borrows them (`objects/info/alternates`,
 *   what `clone --reference` does), so the second run on a repository copies nothing. The mirror never
 *   garbage-collects (`gc.auto 0`), so borrowed objects stay.
 * - The run's git directory lives beside the mirrors (`<cacheRoot>/runs/<workflow id>.git`), outside the
 *   workspace, with the workspace as its work tree: a command of the run cannot plant hooks or config
 *   that the worker's git would then run outside the sandbox.
 * - The credential reaches git only through the child's environment: a token by GIT_ASKPASS (a script
 *   that prints an environment variable), an SSH key by a 0600 file named in GIT_SSH_COMMAND, removed
 *   after each call. Never on a command line, never in a URL.
 */
export interface RunRepositoryOptions {
  workflowId: string;
  /** the run's workspace: the work tree */
  workspace: string;
  /** the worker's cache of mirrors and run git directories (under its workspace root) */
  cacheRoot: string;
  repository: DispatchRepository;
  /** files of the worker's own kept out of the commits (report.md) */
  exclude?: readonly string[];
  signal?: AbortSignal;
}

export interface Prepared {
  /** `created`: the mirror was cloned now; `updated`: an existing one was fetched into */
  mirror: 'created' | 'updated';
  /** the branch existed on the remote already (a later revision of the run) */
  branchExisted: boolean;
  head: string;
}

export class GitError extends Error {}

/** One mirror update at a time per mirror (several runs of one worker may share it). */
const mirrorLocks = new Map<string, Promise<unknown>>();

async function withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const previous = mirrorLocks.get(key) ?? Promise.resolve();
  const next = previous.then(fn, fn);
  const settled = next.catch(() => undefined);
  mirrorLocks.set(key, settled);
  try {
    return await next;
  } finally {
    if (mirrorLocks.get(key) === settled) mirrorLocks.delete(key);
  }
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

const ASKPASS = `#!/bin/sh
case "$1" in
  Username*|username*) printf '%s\\n' "$SVC_GIT_USERNAME" ;;
  *) printf '%s\\n' "$SVC_GIT_PASSWORD" ;;
esac
`;

/** The user name sent with a token (GitHub takes x-access-token; Gitea and GitLab take any name with a token). */
const TOKEN_USERNAME = 'x-access-token';

export class RunRepository {
  private readonly repo: DispatchRepository;
  readonly mirrorDir: string;
  readonly gitDir: string;
  private commits = 0;
  private holding = false;

  constructor(private readonly options: RunRepositoryOptions) {
    this.repo = options.repository;
    const key = createHash('sha256').update(this.repo.url).digest('hex').slice(0, 24);
    this.mirrorDir = join(options.cacheRoot, 'mirrors', `${key}.git`);
    this.gitDir = join(options.cacheRoot, 'runs', `${options.workflowId}.git`);
  }

  get branch(): string {
    return this.repo.branch;
  }

  get baseBranch(): string {
    return this.repo.base_branch;
  }

  /** Commits this worker made for the run so far. */
  get commitCount(): number {
    return this.commits;
  }

  /**
   * Clones or updates the mirror, then makes the workspace a work tree of the run's branch: a fresh run
   * checks out its base (files already in the workspace, e.g. a template's, stay and join the first
   * commit); a run whose workspace came back from the server keeps its files and only gets the history.
   */
  async prepare(fresh: boolean): Promise<Prepared> {
    if (!this.holding) holdGitDirs(this.gitDir, this.mirrorDir);
    this.holding = true;
    await mkdir(this.options.workspace, { recursive: true });
    const mirror = await withLock(this.mirrorDir, () => this.updateMirror());
    const branchExisted = await this.mirrorHas(`refs/heads/${this.repo.branch}`);
    if (!(await this.mirrorHas(`refs/heads/${this.repo.base_branch}`)))
      throw new GitError(`the base branch ${this.repo.base_branch} does not exist in the repository`);
    const hadGitDir = await exists(join(this.gitDir, 'HEAD'));
    if (!hadGitDir) await this.initRunGitDir();
    const refspecs = [`+refs/heads/${this.repo.base_branch}:refs/remotes/origin/${this.repo.base_branch}`];
    if (branchExisted) refspecs.push(`+refs/heads/${this.repo.branch}:refs/remotes/origin/${this.repo.branch}`);
    await this.git(['fetch', '--quiet', '--no-tags', this.mirrorDir, ...refspecs]);
    const start = branchExisted
      ? `refs/remotes/origin/${this.repo.branch}`
      : `refs/remotes/origin/${this.repo.base_branch}`;
    if (!hadGitDir) {
      if (fresh && !branchExisted) {
        await this.git(['checkout', '--quiet', '--force', '-B', this.repo.branch, start]);
      } else {
        // The workspace is the truth (it came back from the server): history only, files untouched.
        await this.git(['symbolic-ref', 'HEAD', `refs/heads/${this.repo.branch}`]);
        await this.git(['reset', '--quiet', start]);
      }
    }
    return { mirror, branchExisted, head: await this.head() };
  }

  /** Commits everything that changed with the step's title; null when nothing changed. */
  async commitStep(title: string): Promise<string | null> {
    await this.git(['add', '--all', '--', '.']);
    const staged = await this.git(['diff', '--cached', '--quiet'], { allowExit: [1] });
    if (staged.code === 0) return null;
    const subject = title.replace(/\s+/g, ' ').trim() || 'svc: step';
    const coAuthor = this.repo.co_author;
    const message = coAuthor ? `${subject}\n\nCo-authored-by: ${coAuthor.name} <${coAuthor.email}>\n` : `${subject}\n`;
    await this.git(['commit', '--quiet', '--no-verify', '--file', '-'], { input: message });
    this.commits += 1;
    return this.head();
  }

  /**
   * Pushes the branch; a rejection (a protected branch, a non-fast-forward, bad credentials) is the
   * report's `error`, not a throw. The diff against the base goes with the report, bounded.
   */
  async push(): Promise<RepositoryUpdateData> {
    const head = await this.head();
    const base = {
      branch: this.repo.branch,
      base_branch: this.repo.base_branch,
      head_sha: head,
      commits: this.commits,
      ...(await this.diff()),
    };
    const pushed = await this.git(['push', '--porcelain', this.repo.url, `HEAD:refs/heads/${this.repo.branch}`], {
      remote: true,
      allowExit: [1, 128],
    });
    if (pushed.code === 0) return { ...base, pushed: true, error: null };
    return { ...base, pushed: false, error: pushFailure(pushed.stdout, pushed.stderr) };
  }

  /** `git diff <merge base>..HEAD`, at most REPOSITORY_DIFF_MAX_BYTES. */
  async diff(): Promise<{ diff: string; diff_truncated: boolean }> {
    try {
      const mergeBase = (
        await this.git(['merge-base', `refs/remotes/origin/${this.repo.base_branch}`, 'HEAD'])
      ).stdout.trim();
      const { stdout } = await this.git(
        ['diff', '--no-color', '--no-ext-diff', '--no-textconv', `${mergeBase}..HEAD`],
        {
          maxBuffer: 8 * REPOSITORY_DIFF_MAX_BYTES,
        },
      );
      const cut = truncateUtf8(stdout, REPOSITORY_DIFF_MAX_BYTES);
      return { diff: cut.text, diff_truncated: cut.truncated };
    } catch {
      return { diff: '', diff_truncated: true };
    }
  }

  async head(): Promise<string> {
    return (await this.git(['rev-parse', 'HEAD'])).stdout.trim();
  }

  private async mirrorHas(ref: string): Promise<boolean> {
    const found = await this.git(['--git-dir', this.mirrorDir, 'rev-parse', '--verify', '--quiet', ref], {
      bare: true,
      allowExit: [1],
    });
    return found.code === 0;
  }

  private async updateMirror(): Promise<'created' | 'updated'> {
    if (await exists(join(this.mirrorDir, 'HEAD'))) {
      // its time is its last use: the cache pruning (git-cache.ts) keeps mirrors used within the age
      const now = new Date();
      await utimes(this.mirrorDir, now, now);
      await this.git(['--git-dir', this.mirrorDir, 'fetch', '--quiet', '--prune', this.repo.url, '+refs/*:refs/*'], {
        bare: true,
        remote: true,
      });
      return 'updated';
    }
    await mkdir(join(this.options.cacheRoot, 'mirrors'), { recursive: true });
    const partial = `${this.mirrorDir}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await this.git(['clone', '--quiet', '--mirror', this.repo.url, partial], { bare: true, remote: true });
      await this.git(['--git-dir', partial, 'config', 'gc.auto', '0'], { bare: true });
      await rename(partial, this.mirrorDir);
    } finally {
      await rm(partial, { recursive: true, force: true });
    }
    return 'created';
  }

  private async initRunGitDir(): Promise<void> {
    await mkdir(join(this.options.cacheRoot, 'runs'), { recursive: true });
    await this.git(['--git-dir', this.gitDir, 'init', '--quiet', '--bare'], { bare: true });
    await this.git(['--git-dir', this.gitDir, 'config', 'core.bare', 'false'], { bare: true });
    await mkdir(join(this.gitDir, 'objects', 'info'), { recursive: true });
    await writeFile(join(this.gitDir, 'objects', 'info', 'alternates'), `${join(this.mirrorDir, 'objects')}\n`);
    const excluded = ['node_modules/', ...(this.options.exclude ?? []).map((path) => `/${path}`)];
    await mkdir(join(this.gitDir, 'info'), { recursive: true });
    await appendFile(join(this.gitDir, 'info', 'exclude'), `${excluded.join('\n')}\n`);
  }

  /** Lets the cache pruning have the run's git directory and its mirror again (the run is over here). */
  release(): void {
    if (this.holding) releaseGitDirs(this.gitDir, this.mirrorDir);
    this.holding = false;
  }

  /** Removes the run's git directory (the mirror stays for the next run). */
  async dispose(): Promise<void> {
    this.release();
    await rm(this.gitDir, { recursive: true, force: true });
  }

  /**
   * Runs git with a closed environment: no system or global config, no prompts, hooks off, the run's
   * git dir and work tree (unless `bare`), and for `remote` calls the credential.
   */
  private async git(
    args: string[],
    opts: { bare?: boolean; remote?: boolean; input?: string; allowExit?: number[]; maxBuffer?: number } = {},
  ): Promise<{ code: number; stdout: string; stderr: string }> {
    const home = join(this.options.cacheRoot, 'home');
    await mkdir(home, { recursive: true });
    const env: NodeJS.ProcessEnv = {
      PATH: workerPath(),
      HOME: home,
      LC_ALL: 'C',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_TERMINAL_PROMPT: '0',
      GIT_AUTHOR_NAME: this.repo.author.name,
      GIT_AUTHOR_EMAIL: this.repo.author.email,
      GIT_COMMITTER_NAME: this.repo.author.name,
      GIT_COMMITTER_EMAIL: this.repo.author.email,
      ...(opts.bare ? {} : { GIT_DIR: this.gitDir, GIT_WORK_TREE: this.options.workspace }),
    };
    const cleanup: string[] = [];
    if (opts.remote) Object.assign(env, await this.credentialEnv(cleanup));
    const config = ['-c', 'core.hooksPath=/dev/null', '-c', 'credential.helper=', '-c', 'core.fsmonitor=false'];
    try {
      return await new Promise((resolve, reject) => {
        const child = execFile(
          'git',
          [...config, ...args],
          {
            env,
            cwd: opts.bare ? this.options.cacheRoot : this.options.workspace,
            maxBuffer: opts.maxBuffer ?? 16 * 1024 * 1024,
            signal: this.options.signal,
            encoding: 'utf8',
          },
          (error, stdout, stderr) => {
            const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
            if (code === 0 || opts.allowExit?.includes(code)) return resolve({ code, stdout, stderr });
            reject(
              new GitError(
                `git ${args.find((a) => !a.startsWith('-') && !a.includes('/')) ?? ''} failed: ${stderr.trim() || error?.message}`,
              ),
            );
          },
        );
        if (opts.input !== undefined) child.stdin?.end(opts.input);
      });
    } finally {
      for (const path of cleanup) await rm(path, { force: true });
    }
  }

  /** The child environment that hands git the credential (files it needs are removed after the call). */
  private async credentialEnv(cleanup: string[]): Promise<Record<string, string>> {
    const { kind, value } = this.repo.credential;
    const dir = join(this.options.cacheRoot, 'credentials');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    if (kind === 'token') {
      const askpass = join(dir, 'askpass.sh');
      if (!(await exists(askpass))) {
        const partial = `${askpass}.${randomBytes(4).toString('hex')}`;
        await writeFile(partial, ASKPASS, { mode: 0o700 });
        await rename(partial, askpass);
      }
      return { GIT_ASKPASS: askpass, SVC_GIT_USERNAME: TOKEN_USERNAME, SVC_GIT_PASSWORD: value };
    }
    const keyFile = join(dir, `key-${randomBytes(8).toString('hex')}`);
    await writeFile(keyFile, value.endsWith('\n') ? value : `${value}\n`, { mode: 0o600 });
    await chmod(keyFile, 0o600);
    cleanup.push(keyFile);
    const knownHosts = join(dir, 'known_hosts');
    return {
      GIT_SSH_COMMAND: `ssh -i '${keyFile}' -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=accept-new -o UserKnownHostsFile='${knownHosts}'`,
    };
  }
}

/** Why a push failed, from git's porcelain output (`!` lines) and its error text. */
function pushFailure(stdout: string, stderr: string): string {
  const rejected = stdout
    .split('\n')
    .filter((line) => line.startsWith('!'))
    .map((line) => line.split('\t').slice(2).join(' ').trim())
    .filter(Boolean);
  const remote = stderr
    .split('\n')
    .filter((line) => line.startsWith('remote:') || line.startsWith('error:') || line.startsWith('fatal:'))
    .map((line) => line.trim());
  const text = [...rejected.map((reason) => `rejected: ${reason}`), ...remote].join('\n');
  return truncateUtf8(text || stderr.trim() || 'the push failed', 3000).text;
}
