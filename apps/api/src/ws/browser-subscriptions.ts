import type { AppDeps } from '../deps';
import { DomainError, toDomainError } from '../domain/errors';
import { authorizeProject, authorizeWorkflow } from '../policies/access';
import { WorkflowSubscription } from '../events';
import type { BrowserClient } from './browser-client';
import { JoinedReads, SharedChecks } from './shared-checks';

/**
 * How long "this credential may read this workflow" serves further subscribes of the same credential
 * (the tabs of a session reconnecting); forgotten at once when a project's access changes (decision 0068).
 */
const ACCESS_ANSWER_MS = 1000;

/** Most subscriptions (workflows plus projects) one socket may hold. */
export const MAX_SUBSCRIPTIONS_PER_CLIENT = 500;

/**
 * Who follows what. Every subscription is authorized when it is made (a non-member gets not_found,
 * exactly like REST) and checked again when the project's members change or it is deleted.
 */
export class BrowserSubscriptions {
  private readonly byWorkflow = new Map<string, Set<WorkflowSubscription<BrowserClient>>>();
  private readonly byProject = new Map<string, Set<BrowserClient>>();
  /** per followed project, how to stop bringing other replicas' events of it here */
  private readonly projectWatches = new Map<string, () => void>();
  /** by token id and workflow: the workflow a subscribe may follow */
  private readonly readable = new SharedChecks<{ id: string; project_id: string }>(ACCESS_ANSWER_MS);
  /** by workflow: its last seq, one read for the subscribes waiting for it */
  private readonly latestSeqs = new JoinedReads<number>();

  constructor(private readonly deps: AppDeps) {}

  /** Forgets who may read what (access changed, a credential was revoked): the next subscribe asks the database. */
  forgetAccess(): void {
    this.readable.clear();
  }

  async subscribeWorkflow(client: BrowserClient, workflowId: string, sinceSeq: number | undefined): Promise<void> {
    const { db, events } = this.deps;
    const { principal } = client;
    const workflow = await this.readable.get(`${principal.claims.jti} ${workflowId}`, async () => {
      const { workflow: row } = await authorizeWorkflow(db, principal, workflowId, 'workflow.read');
      return { id: row.id, project_id: row.project_id };
    });
    this.unsubscribeWorkflow(client, workflow.id);
    this.checkRoom(client);
    // Registered before reading the current seq, so nothing announced from here on can be missed.
    const sub = new WorkflowSubscription(client, workflow.id, workflow.project_id, events);
    client.workflows.set(workflow.id, sub);
    add(this.byWorkflow, workflow.id, sub);
    const current = await this.latestSeqs.get(
      workflow.id,
      async () =>
        (await db.workflow.findUnique({ where: { id: workflow.id }, select: { last_event_seq: true } }))
          ?.last_event_seq ?? 0,
    );
    // No since_seq, or one from the future: the client starts from now.
    await sub.begin(sinceSeq === undefined || sinceSeq > current ? current : sinceSeq, current);
    if (client.workflows.get(workflow.id) !== sub) return;
    client.send({ type: 'subscribed', workflow_id: workflow.id, last_seq: sub.lastSent });
    // The running commands' output so far; live pieces may overtake it, the page orders them by offset.
    for (const message of events.runningCommandOutput(workflow.id)) client.send(message);
  }

  unsubscribeWorkflow(client: BrowserClient, workflowId: string): void {
    const sub = client.workflows.get(workflowId);
    if (!sub) return;
    sub.cancel();
    client.workflows.delete(workflowId);
    remove(this.byWorkflow, workflowId, sub);
  }

  async subscribeProject(client: BrowserClient, projectId: string): Promise<void> {
    const { project } = await authorizeProject(this.deps.db, client.principal, projectId, 'project.read');
    if (client.projects.has(project.id)) return;
    this.checkRoom(client);
    client.projects.add(project.id);
    add(this.byProject, project.id, client);
    if (!this.projectWatches.has(project.id))
      this.projectWatches.set(project.id, this.deps.events.watchProject(project.id));
  }

  unsubscribeProject(client: BrowserClient, projectId: string): void {
    if (!client.projects.delete(projectId)) return;
    remove(this.byProject, projectId, client);
    if (!this.byProject.has(projectId)) {
      this.projectWatches.get(projectId)?.();
      this.projectWatches.delete(projectId);
    }
  }

  removeClient(client: BrowserClient): void {
    for (const id of [...client.workflows.keys()]) this.unsubscribeWorkflow(client, id);
    for (const id of [...client.projects]) this.unsubscribeProject(client, id);
  }

  /** How many sockets follow the workflow here (observability and tests). */
  workflowSubscribers(workflowId: string): number {
    return this.byWorkflow.get(workflowId)?.size ?? 0;
  }

  forWorkflow(workflowId: string, visit: (sub: WorkflowSubscription<BrowserClient>) => void): void {
    const subs = this.byWorkflow.get(workflowId);
    if (subs) for (const sub of subs) visit(sub);
  }

  forProject(projectId: string, visit: (client: BrowserClient) => void): void {
    const clients = this.byProject.get(projectId);
    if (clients) for (const client of clients) visit(client);
  }

  /** Drops (with an error message) the subscriptions in the project their owners may no longer see. */
  recheckProject(projectId: string): void {
    const { db } = this.deps;
    this.forgetAccess();
    const checks: Promise<void>[] = [];
    for (const client of this.byProject.get(projectId) ?? []) {
      checks.push(
        authorizeProject(db, client.principal, projectId, 'project.read').then(
          () => undefined,
          (err: unknown) => {
            this.unsubscribeProject(client, projectId);
            client.sendError({
              code: toDomainError(err).code,
              message: `project ${projectId}: ${toDomainError(err).message}; unsubscribed`,
            });
          },
        ),
      );
    }
    for (const [workflowId, subs] of this.byWorkflow) {
      for (const sub of subs) {
        if (sub.projectId !== projectId) continue;
        checks.push(
          authorizeWorkflow(db, sub.client.principal, workflowId, 'workflow.read').then(
            () => undefined,
            (err: unknown) => {
              this.unsubscribeWorkflow(sub.client, workflowId);
              sub.client.sendError({
                code: toDomainError(err).code,
                message: `workflow ${workflowId}: ${toDomainError(err).message}; unsubscribed`,
              });
            },
          ),
        );
      }
    }
    void Promise.all(checks).catch((err: unknown) => this.deps.logger.error({ err }, 'subscription re-check failed'));
  }

  private checkRoom(client: BrowserClient): void {
    if (client.workflows.size + client.projects.size >= MAX_SUBSCRIPTIONS_PER_CLIENT) {
      throw new DomainError('rate_limited', `at most ${MAX_SUBSCRIPTIONS_PER_CLIENT} subscriptions per socket`);
    }
  }
}

function add<K, V>(index: Map<K, Set<V>>, key: K, value: V): void {
  let set = index.get(key);
  if (!set) index.set(key, (set = new Set()));
  set.add(value);
}

function remove<K, V>(index: Map<K, Set<V>>, key: K, value: V): void {
  const set = index.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) index.delete(key);
}
