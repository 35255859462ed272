import { giteaApi, type PullRequest } from 'gitea-js';
import { fetchThrough } from '../webhooks/guarded-dispatcher';
import {
  forgeCallError,
  forgeDispatcher,
  splitPath,
  type ForgeClient,
  type ForgeConnectOptions,
  type ForgeTarget,
  type ForgeUser,
  type PullRequestRef,
} from './types';

/** The collaborator permissions that may steer runs by comments. */
const STEERING_PERMISSIONS = ['write', 'admin', 'owner'];

const pullRef = (pull: PullRequest): PullRequestRef => ({
  number: pull.number ?? 0,
  url: pull.html_url ?? '',
  state: pull.merged ? 'merged' : pull.state === 'open' ? 'open' : 'closed',
  head: pull.head?.ref ?? '',
  base: pull.base?.ref ?? '',
});

async function call<T>(what: string, run: () => Promise<{ data: T }>): Promise<T> {
  try {
    return (await run()).data;
  } catch (error) {
    // gitea-js rejects with the failed Response itself.
    throw forgeCallError('Gitea', what, (error as { status?: number }).status, error);
  }
}

/** Gitea and Forgejo (`apiBaseUrl` = the instance's root URL; the client adds `/api/v1`) through `gitea-js`. */
export class GiteaForge implements ForgeClient {
  readonly kind = 'gitea' as const;
  private readonly api: ReturnType<typeof giteaApi>;
  private readonly owner: string;
  private readonly repo: string;

  constructor(target: ForgeTarget, options: ForgeConnectOptions = {}) {
    this.api = giteaApi(target.apiBaseUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, ''), {
      token: target.token,
      customFetch: fetchThrough(forgeDispatcher(target.apiBaseUrl, options)),
    });
    ({ owner: this.owner, repo: this.repo } = splitPath(target.path));
  }

  async findPullRequest(head: string, base: string): Promise<PullRequestRef | null> {
    try {
      const pull = await this.api.repos.repoGetPullRequestByBaseHead(this.owner, this.repo, base, head);
      return pullRef(pull.data);
    } catch (error) {
      if ((error as { status?: number }).status === 404) return null;
      throw forgeCallError('Gitea', 'finding a pull request', (error as { status?: number }).status, error);
    }
  }

  async openPullRequest(input: { head: string; base: string; title: string; body: string }): Promise<PullRequestRef> {
    const pull = await call('opening a pull request', () =>
      this.api.repos.repoCreatePullRequest(this.owner, this.repo, input),
    );
    return pullRef(pull);
  }

  async postStatus(sha: string, status: Parameters<ForgeClient['postStatus']>[1]): Promise<void> {
    await call('posting a commit status', () =>
      this.api.repos.repoCreateStatus(this.owner, this.repo, sha, {
        state: status.state,
        context: status.context,
        description: status.description,
        target_url: status.targetUrl,
      }),
    );
  }

  async postComment(number: number, body: string): Promise<void> {
    await call('posting a comment', () => this.api.repos.issueCreateComment(this.owner, this.repo, number, { body }));
  }

  async maySteer(user: ForgeUser): Promise<boolean> {
    if (!user.login) return false;
    try {
      const answer = await this.api.repos.repoGetRepoPermissions(this.owner, this.repo, user.login);
      return STEERING_PERMISSIONS.includes(answer.data.permission ?? '');
    } catch (error) {
      const status = (error as { status?: number }).status;
      // an unknown user (or one the repository does not know) has no role there
      if (status === 404) return false;
      throw forgeCallError('Gitea', "reading a commenter's permission", status, error);
    }
  }

  async getIssue(number: number) {
    const issue = await call('reading an issue', () => this.api.repos.issueGetIssue(this.owner, this.repo, number));
    return {
      number: issue.number ?? number,
      title: issue.title ?? '',
      body: issue.body ?? '',
      url: issue.html_url ?? '',
      labels: (issue.labels ?? []).map((label) => label.name ?? '').filter(Boolean),
    };
  }
}
