import { Gitlab } from '@gitbeaker/rest';
import {
  forgeCallError,
  forgeDispatcher,
  type ForgeClient,
  type ForgeConnectOptions,
  type ForgeTarget,
  type ForgeUser,
  type PullRequestRef,
} from './types';

/** GitLab's Developer access level: the least that may steer runs by comments. */
const DEVELOPER = 30;

interface GitlabMergeRequest {
  iid: number;
  web_url: string;
  state: string;
  source_branch: string;
  target_branch: string;
}

const mergeRequestRef = (mr: GitlabMergeRequest): PullRequestRef => ({
  number: mr.iid,
  url: mr.web_url,
  state: mr.state === 'merged' ? 'merged' : mr.state === 'opened' ? 'open' : 'closed',
  head: mr.source_branch,
  base: mr.target_branch,
});

async function call<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const cause = (error as { cause?: { response?: { status?: number } } }).cause;
    throw forgeCallError('GitLab', what, cause?.response?.status, error);
  }
}

const STATE = { pending: 'pending', success: 'success', failure: 'failed' } as const;

/** GitLab.com or a self-hosted GitLab (`apiBaseUrl` = the host; the client adds `/api/v4`) through `@gitbeaker/rest`. */
export class GitlabForge implements ForgeClient {
  readonly kind = 'gitlab' as const;
  private readonly api: InstanceType<typeof Gitlab>;
  private readonly project: string;

  constructor(target: ForgeTarget, options: ForgeConnectOptions = {}) {
    this.api = new Gitlab({
      host: target.apiBaseUrl.replace(/\/+$/, '').replace(/\/api\/v4$/, ''),
      token: target.token,
      rateLimitDuration: 0,
      // @gitbeaker/rest hands its agent to fetch as the dispatcher
      agent: forgeDispatcher(target.apiBaseUrl, options) as never,
    });
    this.project = target.path;
  }

  async findPullRequest(head: string, base: string): Promise<PullRequestRef | null> {
    const list = await call('listing merge requests', () =>
      this.api.MergeRequests.all({ projectId: this.project, sourceBranch: head, targetBranch: base, maxPages: 1 }),
    );
    const found = (list as unknown as GitlabMergeRequest[]).find((mr) => mr.source_branch === head);
    return found ? mergeRequestRef(found) : null;
  }

  async openPullRequest(input: { head: string; base: string; title: string; body: string }): Promise<PullRequestRef> {
    const mr = await call('opening a merge request', () =>
      this.api.MergeRequests.create(this.project, input.head, input.base, input.title, {
        description: input.body,
      }),
    );
    return mergeRequestRef(mr as unknown as GitlabMergeRequest);
  }

  async postStatus(sha: string, status: Parameters<ForgeClient['postStatus']>[1]): Promise<void> {
    await call('posting a commit status', () =>
      this.api.Commits.editStatus(this.project, sha, STATE[status.state], {
        name: status.context,
        description: status.description,
        targetUrl: status.targetUrl,
      }),
    );
  }

  async postComment(number: number, body: string, options: { onMergeRequest?: boolean } = {}): Promise<void> {
    await call<unknown>('posting a comment', () =>
      options.onMergeRequest
        ? this.api.MergeRequestNotes.create(this.project, number, body)
        : this.api.IssueNotes.create(this.project, number, body),
    );
  }

  async maySteer(user: ForgeUser): Promise<boolean> {
    if (user.id === null) return false;
    try {
      // members/all: direct, inherited (group) and invited members alike
      const member = (await this.api.ProjectMembers.show(this.project, user.id, {
        includeInherited: true,
      })) as unknown as { access_level?: number };
      return (member.access_level ?? 0) >= DEVELOPER;
    } catch (error) {
      const status = (error as { cause?: { response?: { status?: number } } }).cause?.response?.status;
      // not a member of the project
      if (status === 404) return false;
      throw forgeCallError('GitLab', "reading a commenter's membership", status, error);
    }
  }

  async getIssue(number: number) {
    const issue = (await call('reading an issue', () =>
      this.api.Issues.show(number, { projectId: this.project }),
    )) as unknown as { iid: number; title: string; description: string | null; web_url: string; labels: unknown[] };
    return {
      number: issue.iid,
      title: issue.title,
      body: issue.description ?? '',
      url: issue.web_url,
      labels: issue.labels.map((label) =>
        typeof label === 'string' ? label : String((label as { name?: string }).name ?? ''),
      ),
    };
  }
}
