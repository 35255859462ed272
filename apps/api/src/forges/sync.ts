import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { prepare, queryBuilder, type Db, type DbProvider, type Prepared, type SqlReader } from '@svc/db';
import type { PullRequestOpenedEventData } from '@svc/protocol';
import type { EventStore } from '../events';
import type { WorkflowEngine } from '../engine';
import type { RunSecrets } from '../secrets/run-secrets';
import type { RepositorySecrets } from '../secrets/repository-secrets';
import type { Storage } from '../services/storage';
import { resolveReport, REPORT_FILE } from '../routes/workflows/report';
import { isUnfinished } from '../workflows/status';
import { DELIVERY_LOG_PRUNE_INTERVAL_MS } from '../outbox/retention';
import { ForgeActions } from './actions';
import { forgeClient } from './index';
import { repositoryPath, type ForgeClient, type ForgeTarget } from './types';
import { SVC_COMMENT_MARKER } from './webhook-events';

/** Longest report put into a pull request's body (GitHub's limit is 65 536 characters). */
export const MAX_PR_BODY_CHARS = 60_000;
/** The commit status's context (GitHub), name (GitLab). */
export const STATUS_CONTEXT = 'svc';
/** Runs remembered as having no repository (a few hundred KiB at most). */
const UNLINKED_RUNS_KEPT = 10_000;

export interface ForgeSyncDeps {
  db: Db;
  /** whether a run has a repository on a forge, on the driver (every status change of every run asks) */
  reader: SqlReader;
  provider: DbProvider;
  events: EventStore;
  /** the repositories' credentials (scope `repository`) */
  repositorySecrets: RepositorySecrets;
  storage: Storage;
  runSecrets: RunSecrets;
  logger: Logger;
  /** PUBLIC_URL: the run's page is linked from the forge */
  publicUrl: () => string;
  /** how often every replica looks for work missed (a crash, a forge that was down) */
  sweepMs: number;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: a forge API at an internal address is called (else refused at connect time) */
  allowPrivateTargets: () => boolean;
  /**
   * Housekeeping the sweep also does, at most every DELIVERY_LOG_PRUNE_INTERVAL_MS on a replica: the
   * delivery logs' retention (decision 0048). Idempotent, so every replica may run it.
   */
  prune?: () => Promise<unknown>;
  /** tests and self-hosted set-ups may swap the client (default: the forge's client library) */
  clientFor?: (target: ForgeTarget) => ForgeClient;
}

/**
 * The server's side of a run on a forge (decision 0047): driven by the engine's committed transitions
 * (after-commit, on the replica that made them) and a sweep on every replica (restarts, forge outages),
 * each forge call made once through ForgeActions. A running run with a known head gets a pending
 * status; a completed run whose branch was pushed gets its pull request (found first, so a retry never
 * opens a second), the `pull_request_opened` event, a success status and a comment linking the run; a
 * failed one a failure status.
 */
export class ForgeSync {
  private readonly actions: ForgeActions;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private stopListening: (() => void) | null = null;
  private closed = false;
  private nextPruneAt = 0;
  /** runs known to have no repository link (it can only be made with the run) */
  private readonly unlinked = new LRUCache<string, true>({ max: UNLINKED_RUNS_KEPT });

  /** What decides whether a run has forge work: its repository's credential kind and deletion. */
  private readonly forgeLink: Prepared<{ workflowId: string }>;

  constructor(private readonly deps: ForgeSyncDeps) {
    this.forgeLink = prepare(deps.provider, (arg) =>
      queryBuilder(deps.provider)
        .selectFrom('workflow_repositories as l')
        .innerJoin('repositories as r', 'r.id', 'l.repository_id')
        .select(['r.credential_kind', 'r.deleted_at'])
        .where('l.workflow_id', '=', arg('workflowId')),
    );
    this.actions = new ForgeActions(deps.db);
  }

  start(engine: Pick<WorkflowEngine, 'bus'>): void {
    this.stopListening = engine.bus.on('transitioned', ({ workflow, status }) => {
      if (status !== null) this.kick(workflow.id);
    });
    const tick = () => {
      this.timer = setTimeout(() => {
        void this.sweep()
          .catch((err: unknown) => this.deps.logger.warn({ err }, 'forge sweep failed'))
          .finally(() => {
            if (!this.closed) tick();
          });
      }, this.deps.sweepMs);
      this.timer.unref();
    };
    tick();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopListening?.();
    if (this.timer) clearTimeout(this.timer);
    await Promise.allSettled([...this.inFlight.values()]);
  }

  /** Brings the run's forge side up to date (one pass at a time per run; a nudge meanwhile runs one more). */
  nudge(workflowId: string): Promise<void> {
    const running = this.inFlight.get(workflowId);
    if (running) {
      this.again.add(workflowId);
      return running;
    }
    const pass = this.process(workflowId)
      .catch((err: unknown) => this.deps.logger.warn({ err, workflow_id: workflowId }, 'forge sync failed'))
      .finally(() => {
        this.inFlight.delete(workflowId);
        if (this.again.delete(workflowId) && !this.closed) this.kick(workflowId);
      });
    this.inFlight.set(workflowId, pass);
    return pass;
  }

  /** A nudge nobody waits for (it never rejects: a pass logs its own failure). */
  kick(workflowId: string): void {
    this.nudge(workflowId).catch(() => undefined);
  }

  /**
   * Completed runs with a pushed branch and no pull request yet, and actions due for a retry; then the
   * delivery logs' retention when it is due on this replica.
   */
  async sweep(): Promise<void> {
    await this.forgeWork();
    if (!this.deps.prune || Date.now() < this.nextPruneAt) return;
    this.nextPruneAt = Date.now() + DELIVERY_LOG_PRUNE_INTERVAL_MS;
    await this.deps.prune();
  }

  private async forgeWork(): Promise<void> {
    const pushed = await this.deps.db.workflowRepository.findMany({
      where: { pushed_at: { not: null }, pr_number: null },
      select: { workflow_id: true },
      take: 100,
    });
    const ids = new Set([...pushed.map((row) => row.workflow_id), ...(await this.actions.due(100))]);
    for (const id of ids) await this.nudge(id);
  }

  private async process(workflowId: string): Promise<void> {
    const run = await this.runOf(workflowId);
    if (!run) return;
    const { link, workflow, client, runUrl, label } = run;
    const once = (kind: string, act: () => Promise<void>) => this.actions.once(workflow.id, kind, act);
    if (link.issue_number !== null)
      await once('comment:issue-started', () =>
        client.postComment(link.issue_number!, `${SVC_COMMENT_MARKER}\nStarted [${label}](${runUrl}) for this issue.`),
      );
    const head = link.head_sha;
    if (!head) return;
    if (isUnfinished(workflow.status)) {
      await once(`status:${head}:pending`, () => client.postStatus(head, status('pending', label, runUrl)));
      return;
    }
    if (workflow.status !== 'completed') {
      await once(`status:${head}:failure`, () => client.postStatus(head, status('failure', label, runUrl)));
      return;
    }
    if (link.pushed_at) await this.completed(run, head);
  }

  /** The run, its repository link and a client of its forge; null when there is nothing to do on a forge. */
  private async runOf(workflowId: string) {
    const { db } = this.deps;
    if (!(await this.mayHaveForgeWork(workflowId))) return null;
    const link = await db.workflowRepository.findUnique({
      where: { workflow_id: workflowId },
      include: { repository: true },
    });
    if (!link || link.repository.deleted_at || link.repository.credential_kind !== 'token') return null;
    const workflow = await db.workflow.findFirst({
      where: { id: workflowId, deleted_at: null },
      select: { id: true, project_id: true, number: true, title: true, status: true },
    });
    // an SSH deploy key cannot call the forge's API: such runs get their branch pushed, no PR
    const token = workflow ? await this.deps.repositorySecrets.read(link.repository.id, 'credential') : null;
    if (!workflow || !token) return null;
    const repo = link.repository;
    const target: ForgeTarget = {
      forge: repo.forge as ForgeTarget['forge'],
      apiBaseUrl: repo.api_base_url,
      path: repositoryPath(repo.url),
      token,
    };
    const client = this.deps.clientFor
      ? this.deps.clientFor(target)
      : forgeClient(target, { allowPrivate: this.deps.allowPrivateTargets() });
    const runUrl = `${this.deps.publicUrl()}/projects/${workflow.project_id}/workflows/${workflow.id}`;
    return { link, workflow, client, runUrl, label: `svc run #${workflow.number}` };
  }

  /**
   * Most runs have no repository on a forge: one statement on the driver says so before anything is read.
   * A run's repository link is made in its create transaction or never, so a run found without one is
   * remembered and its later transitions read nothing.
   */
  private async mayHaveForgeWork(workflowId: string): Promise<boolean> {
    if (this.unlinked.has(workflowId)) return false;
    const forge = (await this.deps.reader.row(this.forgeLink.bind({ workflowId }))) as
      | { credential_kind: string; deleted_at: unknown }
      | undefined;
    if (forge === undefined) this.unlinked.set(workflowId, true);
    return forge !== undefined && forge.deleted_at === null && forge.credential_kind === 'token';
  }

  /** A completed pushed run: its PR (found first, else opened), a success status, a comment on the PR and issue. */
  private async completed(run: NonNullable<Awaited<ReturnType<ForgeSync['runOf']>>>, head: string): Promise<void> {
    const { link, workflow, client, runUrl, label } = run;
    const once = (kind: string, act: () => Promise<void>) => this.actions.once(workflow.id, kind, act);
    const opened = await once('pr', async () => {
      const pr =
        (await client.findPullRequest(link.branch, link.base_branch)) ??
        (await client.openPullRequest({
          head: link.branch,
          base: link.base_branch,
          title: workflow.title || label,
          body: await this.pullRequestBody(workflow, label, runUrl),
        }));
      await this.recordPullRequest(workflow, link.branch, link.base_branch, pr);
    });
    if (opened !== 'done') return;
    await once(`status:${head}:success`, () => client.postStatus(head, status('success', label, runUrl)));
    const fresh = await this.deps.db.workflowRepository.findUnique({ where: { workflow_id: workflow.id } });
    const number = fresh?.pr_number;
    if (!number) return;
    await once(`comment:pr:${number}`, () =>
      client.postComment(
        number,
        `${SVC_COMMENT_MARKER}\nOpened by [${label}](${runUrl}). Review comments here revise the run.`,
        { onMergeRequest: true },
      ),
    );
    if (link.issue_number !== null && fresh.pr_url)
      await once(`comment:issue-pr:${number}`, () =>
        client.postComment(link.issue_number!, `${SVC_COMMENT_MARKER}\n[${label}](${runUrl}) opened ${fresh.pr_url}`),
      );
  }

  /**
   * Stores the PR once (the first writer wins) and appends `pull_request_opened` in the same transaction,
   * so the event (and the outbox's `run.pull_request_opened`) exists exactly when the PR is recorded.
   */
  private async recordPullRequest(
    workflow: { id: string; project_id: string },
    branch: string,
    base: string,
    pr: { number: number; url: string; state: string },
  ): Promise<void> {
    const data: PullRequestOpenedEventData = { url: pr.url, number: pr.number, branch, base };
    let written = false;
    await this.deps.events.appendWith(
      async (tx) => {
        const { count } = await tx!.workflowRepository.updateMany({
          where: { workflow_id: workflow.id, pr_number: null },
          data: { pr_number: pr.number, pr_url: pr.url, pr_state: pr.state },
        });
        written = count === 1;
        return { groups: written ? [{ workflow, events: [{ type: 'pull_request_opened', data }] }] : [] };
      },
      { interactive: true },
    );
    if (!written) return;
    this.deps.events.publishProject(workflow.project_id, { change: 'workflow_updated', workflow_id: workflow.id });
  }

  private async pullRequestBody(workflow: { id: string; project_id: string }, label: string, runUrl: string) {
    const footer = `\n\n---\n${SVC_COMMENT_MARKER}\nOpened by [${label}](${runUrl}).`;
    const report = await this.readReport(workflow).catch(() => null);
    const masker = await this.deps.runSecrets.maskerOf(workflow.id);
    const text = report ?? `The run finished without a ${REPORT_FILE}.`;
    const masked = masker ? masker.mask(text) : text;
    const room = MAX_PR_BODY_CHARS - footer.length;
    return (masked.length > room ? `${masked.slice(0, room - 20)}\n\n… (cut)` : masked) + footer;
  }

  private async readReport(workflow: { id: string; project_id: string }): Promise<string | null> {
    const area = this.deps.storage.workspace(workflow.project_id, workflow.id);
    const file = await resolveReport(area);
    const size = file?.stat?.size ?? 0;
    if (!file || size === 0) return null;
    const stream = await area.read(file, { start: 0, end: Math.min(size, MAX_PR_BODY_CHARS * 4) - 1 });
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
    return Buffer.concat(chunks).toString('utf8');
  }
}

const status = (state: 'pending' | 'success' | 'failure', label: string, targetUrl: string) => ({
  state,
  context: STATUS_CONTEXT,
  description:
    state === 'pending'
      ? `${label} is running`
      : state === 'success'
        ? `${label} completed`
        : `${label} did not complete`,
  targetUrl,
});
