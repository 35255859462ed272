import { GuardedDispatcher, targetRefusal } from '../webhooks/guarded-dispatcher';

/** The forges svc talks to through their own client libraries. */
export type ForgeKind = 'github' | 'gitea' | 'gitlab';

/** Where a repository lives on its forge and how to reach the forge's API. */
export interface ForgeTarget {
  forge: ForgeKind;
  /** The API base: `https://api.github.com` (or `https://ghe.example/api/v3`), a Gitea host, a GitLab host. */
  apiBaseUrl: string;
  /** `owner/name` (GitLab: the full project path, groups included). */
  path: string;
  /** The repository's token (decrypted from the secrets store; never logged). */
  token: string;
}

/** How a client reaches its forge. */
export interface ForgeConnectOptions {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: the forge's API may be at an internal address (default: refused) */
  allowPrivate?: boolean;
}

/**
 * The transport of a forge client: the outbound-target rule checked at connect time (an API host that
 * resolves to an internal address is refused, unless allowed), to the API base's host only.
 */
export function forgeDispatcher(apiBaseUrl: string, options: ForgeConnectOptions): GuardedDispatcher {
  let host = '';
  try {
    host = new URL(apiBaseUrl).hostname;
  } catch {
    // left empty: every request is refused as not going to the forge's host
  }
  return new GuardedDispatcher({ allowPrivate: options.allowPrivate ?? false, host });
}

/** A ForgeError for a failed call: the refusal of an internal address as such, else the forge's HTTP status. */
export function forgeCallError(forge: string, what: string, status: number | undefined, error: unknown): ForgeError {
  const refusal = targetRefusal(error);
  if (refusal) return new ForgeError(`${forge} ${what} refused: ${refusal}`, undefined);
  return new ForgeError(`${forge} ${what} failed${status ? ` (HTTP ${status})` : ''}`, status);
}

export type ForgeState = 'open' | 'closed' | 'merged';

export interface PullRequestRef {
  number: number;
  url: string;
  state: ForgeState;
  head: string;
  base: string;
}

export type CommitState = 'pending' | 'success' | 'failure';

export interface CommitStatusInput {
  state: CommitState;
  /** A name that groups the statuses of one tool (GitHub `context`, GitLab `name`). */
  context: string;
  description: string;
  targetUrl: string;
}

export interface ForgeIssue {
  number: number;
  title: string;
  body: string;
  url: string;
  labels: string[];
}

/** Who wrote a comment on the forge: Gitea's permission call names the login, GitLab's member call the id. */
export interface ForgeUser {
  login: string;
  id: number | null;
}

/**
 * What the server does on a forge: open a pull/merge request (or find the one already open for a branch,
 * so a retry never opens a second), post a commit status, comment on an issue or PR, read an issue.
 */
export interface ForgeClient {
  readonly kind: ForgeKind;
  findPullRequest(head: string, base: string): Promise<PullRequestRef | null>;
  openPullRequest(input: { head: string; base: string; title: string; body: string }): Promise<PullRequestRef>;
  postStatus(sha: string, status: CommitStatusInput): Promise<void>;
  /** A comment on an issue or pull request by its number (GitLab: a merge request's iid when `onMergeRequest`). */
  postComment(number: number, body: string, options?: { onMergeRequest?: boolean }): Promise<void>;
  getIssue(number: number): Promise<ForgeIssue>;
  /**
   * Whether the person may write to the repository, so may steer runs by comments (forges whose
   * payloads do not carry the commenter's role): Gitea write, admin or owner; GitLab Developer (30) or
   * above. GitHub's payloads say it (`author_association`), so its client has none.
   */
  maySteer?(user: ForgeUser): Promise<boolean>;
}

/** A forge call that failed: its HTTP status when the forge answered, never the token. */
export class ForgeError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
  ) {
    super(message);
    this.name = 'ForgeError';
  }
}

/**
 * `owner/name` of a clone URL: `https://host/owner/name(.git)`, `ssh://git@host/owner/name.git`,
 * `git@host:owner/name.git`. GitLab keeps every group (`group/sub/name`).
 */
export function repositoryPath(url: string): string {
  let path: string;
  const scp = /^[^@/\s]+@[^:/\s]+:(.+)$/.exec(url);
  if (scp) path = scp[1]!;
  else {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ForgeError(`not a clone URL: ${url}`, undefined);
    }
    path = decodeURIComponent(parsed.pathname);
  }
  path = path
    .replace(/^\/+/, '')
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
  if (!/^[^/\s]+(\/[^/\s]+)+$/.test(path)) throw new ForgeError('a clone URL needs an owner and a name', undefined);
  return path;
}

export function splitPath(path: string): { owner: string; repo: string } {
  const cut = path.lastIndexOf('/');
  return { owner: path.slice(0, cut), repo: path.slice(cut + 1) };
}
