import { createHash } from 'node:crypto';
import { classifyDbError, type Db, type Repository } from '@svc/db';
import { CreateWorkflowRequestSchema, type ForgeHookResult } from '@svc/protocol';
import { parseInput } from '../domain/validate';
import { conflict, DomainError, invalidInput, notFound } from '../domain/errors';
import type { WorkflowLifecycle } from '../workflows';
import type { ForgeClient, ForgeKind, ForgeUser } from './types';
import { feedbackOf, intentOf, requirementOf, type ForgeIntent } from './webhook-events';
import type { VerifiedForgeDelivery } from './webhook-signature';

export interface ForgeDeliveryOutcome {
  status: 200 | 201;
  result: ForgeHookResult;
}

/** The idempotency key of a delivery's run: a newline cannot be in a header, so no client can send it. */
export const forgeDeliveryKey = (repositoryId: string, deliveryId: string) => `forge\n${repositoryId}\n${deliveryId}`;

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const result = (
  verified: VerifiedForgeDelivery,
  outcome: ForgeHookResult['outcome'],
  workflowId: string | null,
  extra: { replayed?: boolean; reason?: string | null } = {},
): ForgeHookResult => ({
  delivery_id: verified.deliveryId,
  event: verified.event,
  outcome,
  workflow_id: workflowId,
  replayed: extra.replayed ?? false,
  reason: extra.reason ?? null,
});

/**
 * A verified forge delivery does at most one thing, once per delivery id (forge_deliveries, claimed
 * before acting and released when the act fails so the forge's redelivery can try again): start a run
 * for an issue, or give the run whose pull request was commented on its feedback. A delivery id seen
 * before answers what it did (`replayed`); the same id with another body is a 409.
 */
export class ForgeDeliveries {
  constructor(
    private readonly deps: {
      db: Db;
      workflows: WorkflowLifecycle;
      /** after a run was started or revised: bring its forge side up to date (the issue comment) */
      nudge?: (workflowId: string) => void;
      /** the repository's forge client (its API token), null when it has none (an SSH deploy key) */
      clientOf: (repository: Repository) => Promise<ForgeClient | null>;
    },
  ) {}

  /**
   * Why a comment's author may not steer, asked of the forge (Gitea, GitLab: their payloads do not say);
   * null when they may. Without an API token the role cannot be asked, so the comment is not acted on.
   * A forge that does not answer fails the delivery (5xx): the forge delivers it again later.
   */
  private async roleRefusal(repository: Repository, user: ForgeUser | undefined): Promise<string | null> {
    if (!user) return null;
    const client = await this.deps.clientOf(repository);
    if (!client?.maySteer) return "the commenter's role cannot be checked: the repository has no API token";
    let may: boolean;
    try {
      may = await client.maySteer(user);
    } catch (error) {
      throw new DomainError('unavailable', error instanceof Error ? error.message : "the forge's API did not answer");
    }
    return may ? null : 'the author may not write to the repository (write, Developer or above is needed)';
  }

  async accept(repository: Repository, verified: VerifiedForgeDelivery, body: Buffer): Promise<ForgeDeliveryOutcome> {
    const payload = parsePayload(body);
    const digest = sha256(body);
    const earlier = await this.earlier(repository.id, verified, digest);
    if (earlier) return earlier;
    const intent = intentOf(repository.forge as ForgeKind, verified.event, payload, {
      label: repository.trigger_label,
      command: repository.trigger_command,
    });
    if (intent.kind === 'ignore')
      return { status: 200, result: result(verified, 'ignored', null, { reason: intent.reason }) };
    if (intent.kind === 'start') return this.start(repository, verified, digest, intent);
    return this.feedback(repository, verified, digest, intent);
  }

  private async start(
    repository: Repository,
    verified: VerifiedForgeDelivery,
    digest: string,
    intent: Extract<ForgeIntent, { kind: 'start' }>,
  ): Promise<ForgeDeliveryOutcome> {
    const { db, workflows } = this.deps;
    const [project, actor] = await Promise.all([
      db.project.findFirst({ where: { id: repository.project_id, deleted_at: null } }),
      db.user.findUnique({ where: { id: repository.created_by }, select: { id: true, login: true, name: true } }),
    ]);
    if (!project || !actor) throw notFound('repository not found');
    const refusal = await this.roleRefusal(repository, intent.checkRole);
    if (refusal) return { status: 200, result: result(verified, 'ignored', null, { reason: refusal }) };
    const request = parseInput(
      CreateWorkflowRequestSchema,
      { requirement: requirementOf(intent), repository: { id: repository.id } },
      'body',
    );
    const claim = await this.claim(repository.id, verified, digest, 'started');
    if (claim) return claim;
    try {
      const { workflow } = await workflows.create(project, actor, request, {
        idempotencyKey: forgeDeliveryKey(repository.id, verified.deliveryId),
        issueNumber: intent.issue.number,
      });
      await this.settle(repository.id, verified.deliveryId, workflow.id);
      this.deps.nudge?.(workflow.id);
      return { status: 201, result: result(verified, 'started', workflow.id) };
    } catch (error) {
      await this.release(repository.id, verified.deliveryId);
      throw error;
    }
  }

  private async feedback(
    repository: Repository,
    verified: VerifiedForgeDelivery,
    digest: string,
    intent: Extract<ForgeIntent, { kind: 'comment_on_pull' }>,
  ): Promise<ForgeDeliveryOutcome> {
    const { db, workflows } = this.deps;
    const link = await db.workflowRepository.findFirst({
      where: { repository_id: repository.id, pr_number: intent.pullNumber },
      orderBy: { created_at: 'desc' },
    });
    const workflow = link ? await db.workflow.findFirst({ where: { id: link.workflow_id, deleted_at: null } }) : null;
    if (!workflow)
      return {
        status: 200,
        result: result(verified, 'ignored', null, { reason: 'not a pull request the service opened' }),
      };
    const actor = await db.user.findUnique({
      where: { id: repository.created_by },
      select: { id: true, login: true, name: true },
    });
    if (!actor) throw notFound('repository not found');
    const refusal = await this.roleRefusal(repository, intent.checkRole);
    if (refusal) return { status: 200, result: result(verified, 'ignored', null, { reason: refusal }) };
    const claim = await this.claim(repository.id, verified, digest, 'feedback');
    if (claim) return claim;
    try {
      await workflows.feedback(workflow, actor, feedbackOf(intent));
    } catch (error) {
      await this.release(repository.id, verified.deliveryId);
      if (error instanceof DomainError && error.code === 'conflict')
        return {
          status: 200,
          result: result(verified, 'ignored', workflow.id, {
            reason: `the run takes no feedback now (${workflow.status})`,
          }),
        };
      throw error;
    }
    await this.settle(repository.id, verified.deliveryId, workflow.id);
    this.deps.nudge?.(workflow.id);
    return { status: 200, result: result(verified, 'feedback', workflow.id) };
  }

  /** Takes the delivery id; null when this request holds it, else the earlier request's answer. */
  private async claim(
    repositoryId: string,
    verified: VerifiedForgeDelivery,
    digest: string,
    outcome: 'started' | 'feedback',
  ): Promise<ForgeDeliveryOutcome | null> {
    try {
      await this.deps.db.forgeDelivery.create({
        data: {
          repository_id: repositoryId,
          delivery_id: verified.deliveryId,
          event: verified.event,
          outcome,
          payload_sha256: digest,
        },
      });
      return null;
    } catch (error) {
      if (classifyDbError(error) !== 'conflict') throw error;
      return (await this.earlier(repositoryId, verified, digest)) ?? Promise.reject(error);
    }
  }

  private settle(repositoryId: string, deliveryId: string, workflowId: string) {
    return this.deps.db.forgeDelivery.update({
      where: { repository_id_delivery_id: { repository_id: repositoryId, delivery_id: deliveryId } },
      data: { workflow_id: workflowId },
    });
  }

  private async release(repositoryId: string, deliveryId: string) {
    await this.deps.db.forgeDelivery
      .deleteMany({ where: { repository_id: repositoryId, delivery_id: deliveryId } })
      .catch(() => undefined);
  }

  private async earlier(
    repositoryId: string,
    verified: VerifiedForgeDelivery,
    digest: string,
  ): Promise<ForgeDeliveryOutcome | null> {
    const seen = await this.deps.db.forgeDelivery.findUnique({
      where: { repository_id_delivery_id: { repository_id: repositoryId, delivery_id: verified.deliveryId } },
    });
    if (!seen) return null;
    if (seen.payload_sha256 !== digest) throw conflict('this delivery id was already delivered with another payload');
    return {
      status: 200,
      result: result(
        { deliveryId: seen.delivery_id, event: seen.event },
        seen.outcome as ForgeHookResult['outcome'],
        seen.workflow_id,
        { replayed: true },
      ),
    };
  }
}

function parsePayload(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw invalidInput('the delivery body is not valid JSON');
  }
}
