import { Octokit } from '@octokit/rest';
import { fetchThrough } from '../webhooks/guarded-dispatcher';
import {
  forgeCallError,
  forgeDispatcher,
  splitPath,
  type ForgeClient,
  type ForgeConnectOptions,
  type ForgeTarget,
  type PullRequestRef,
} from './types';

interface GithubPull {
  number: number;
  html_url: string;
  state: string;
  merged_at?: string | null;
  head: { ref: string };
  base: { ref: string };
}

const pullRef = (pull: GithubPull): PullRequestRef => ({
  number: pull.number,
  url: pull.html_url,
  state: pull.merged_at ? 'merged' : pull.state === 'open' ? 'open' : 'closed',
  head: pull.head.ref,
  base: pull.base.ref,
});

async function call<T>(what: string, run: () => Promise<{ data: T }>): Promise<T> {
  try {
    return (await run()).data;
  } catch (error) {
    throw forgeCallError('GitHub', what, (error as { status?: number }).status, error);
  }
}

/** GitHub and GitHub Enterprise Server (`apiBaseUrl` = `https://<host>/api/v3`) through `@octokit/rest`. */
export class GithubForge implements ForgeClient {
  readonly kind = 'github' as const;
  private readonly octokit: Octokit;
  private readonly owner: string;
  private readonly repo: string;

  constructor(target: ForgeTarget, options: ForgeConnectOptions & { userAgent?: string } = {}) {
    this.octokit = new Octokit({
      request: { fetch: fetchThrough(forgeDispatcher(target.apiBaseUrl, options)) },
      auth: target.token,
      baseUrl: target.apiBaseUrl.replace(/\/+$/, ''),
      userAgent: options.userAgent ?? 'svc',
      log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    });
    ({ owner: this.owner, repo: this.repo } = splitPath(target.path));
  }

  async findPullRequest(head: string, base: string): Promise<PullRequestRef | null> {
    const pulls = await call('listing pull requests', () =>
      this.octokit.pulls.list({
        owner: this.owner,
        repo: this.repo,
        head: `${this.owner}:${head}`,
        base,
        state: 'all',
      }),
    );
    const found = pulls.find((pull) => pull.head.ref === head);
    return found ? pullRef(found) : null;
  }

  async openPullRequest(input: { head: string; base: string; title: string; body: string }): Promise<PullRequestRef> {
    const pull = await call('opening a pull request', () =>
      this.octokit.pulls.create({ owner: this.owner, repo: this.repo, ...input }),
    );
    return pullRef(pull);
  }

  async postStatus(sha: string, status: Parameters<ForgeClient['postStatus']>[1]): Promise<void> {
    await call('posting a commit status', () =>
      this.octokit.repos.createCommitStatus({
        owner: this.owner,
        repo: this.repo,
        sha,
        state: status.state,
        context: status.context,
        description: status.description.slice(0, 140),
        target_url: status.targetUrl,
      }),
    );
  }

  async postComment(number: number, body: string): Promise<void> {
    await call('posting a comment', () =>
      this.octokit.issues.createComment({ owner: this.owner, repo: this.repo, issue_number: number, body }),
    );
  }

  async getIssue(number: number) {
    const issue = await call('reading an issue', () =>
      this.octokit.issues.get({ owner: this.owner, repo: this.repo, issue_number: number }),
    );
    return {
      number: issue.number,
      title: issue.title,
      body: issue.body ?? '',
      url: issue.html_url,
      labels: issue.labels.map((label) => (typeof label === 'string' ? label : (label.name ?? ''))).filter(Boolean),
    };
  }
}
