import { createHash } from 'node:crypto';
import { classifyDbError, type Db, type Trigger } from '@svc/db';
import type { HookResult } from '@svc/protocol';
import { conflict, invalidInput, notFound } from '../domain/errors';
import type { WorkflowLifecycle } from '../workflows';
import { countDelivery } from './rate-limit';
import { renderRequirement } from './render';
import type { VerifiedDelivery } from './signature';

export interface DeliveryOutcome {
  status: 200 | 201;
  result: HookResult;
}

/** The idempotency key of a delivery's run: a newline cannot be in a header, so no client can send it. */
export const deliveryKey = (triggerId: string, deliveryId: string) => `trigger\n${triggerId}\n${deliveryId}`;

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Whether the trigger starts runs for this event: its filter (`issues`, `issues.opened`), or all but `ping`. */
export function startsRunFor(events: readonly string[], event: string, payload: unknown): boolean {
  if (events.length === 0) return event !== 'ping';
  const action = (payload as { action?: unknown } | null)?.action;
  return events.includes(event) || (typeof action === 'string' && events.includes(`${event}.${action}`));
}

export const eventsOf = (trigger: Pick<Trigger, 'events'>): string[] => JSON.parse(trigger.events) as string[];

/**
 * A verified delivery becomes one run: a delivery id seen before returns its run and makes nothing (the
 * same id with another body is a 409); an event the trigger ignores is answered and not kept; otherwise
 * it is counted against the rate limit, the requirement rendered from the payload, and the run made with
 * the delivery's idempotency key, its payload kept beside it.
 */
export class TriggerDeliveries {
  constructor(private readonly deps: { db: Db; workflows: WorkflowLifecycle }) {}

  async accept(trigger: Trigger, verified: VerifiedDelivery, body: Buffer): Promise<DeliveryOutcome> {
    const payload = parsePayload(body);
    const digest = sha256(body);
    const earlier = await this.earlier(trigger.id, verified.deliveryId, digest);
    if (earlier) return earlier;
    if (!startsRunFor(eventsOf(trigger), verified.event, payload))
      return { status: 200, result: outcome(verified, null, { ignored: true }) };
    await countDelivery(this.deps.db, trigger);
    const requirement = renderRequirement(trigger.requirement_template, payload);
    if (requirement.trim() === '')
      throw invalidInput("the trigger's requirement template rendered nothing for this payload");
    const workflowId = await this.startRun(trigger, verified, requirement);
    try {
      await this.deps.db.triggerDelivery.create({
        data: {
          trigger_id: trigger.id,
          delivery_id: verified.deliveryId,
          workflow_id: workflowId,
          event: verified.event,
          payload: body.toString('utf8'),
          payload_sha256: digest,
        },
      });
    } catch (error) {
      // The same delivery at the same moment: the other request stored it; this one is its replay.
      if (classifyDbError(error) !== 'conflict') throw error;
      return (await this.earlier(trigger.id, verified.deliveryId, digest)) ?? Promise.reject(error);
    }
    return { status: 201, result: outcome(verified, workflowId, {}) };
  }

  private async earlier(triggerId: string, deliveryId: string, digest: string): Promise<DeliveryOutcome | null> {
    const seen = await this.deps.db.triggerDelivery.findUnique({
      where: { trigger_id_delivery_id: { trigger_id: triggerId, delivery_id: deliveryId } },
    });
    if (!seen) return null;
    if (seen.payload_sha256 !== digest) throw conflict('this delivery id was already delivered with another payload');
    return { status: 200, result: outcome({ deliveryId, event: seen.event }, seen.workflow_id, { replayed: true }) };
  }

  private async startRun(trigger: Trigger, verified: VerifiedDelivery, requirement: string): Promise<string> {
    const { db, workflows } = this.deps;
    const project = await db.project.findFirst({ where: { id: trigger.project_id, deleted_at: null } });
    const actor = await db.user.findUnique({
      where: { id: trigger.created_by },
      select: { id: true, login: true, name: true },
    });
    if (!project || !actor) throw notFound('trigger not found');
    const { workflow } = await workflows.create(
      project,
      actor,
      {
        requirement,
        ...(trigger.template ? { template: trigger.template } : {}),
        ...(trigger.worker_id ? { worker_id: trigger.worker_id } : {}),
      },
      { idempotencyKey: deliveryKey(trigger.id, verified.deliveryId) },
    );
    return workflow.id;
  }
}

function parsePayload(body: Buffer): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body)) as unknown;
  } catch {
    throw invalidInput('the body is not valid UTF-8 JSON');
  }
}

const outcome = (
  verified: VerifiedDelivery,
  workflowId: string | null,
  flags: { replayed?: boolean; ignored?: boolean },
): HookResult => ({
  delivery_id: verified.deliveryId,
  event: verified.event,
  workflow_id: workflowId,
  replayed: flags.replayed ?? false,
  ignored: flags.ignored ?? false,
});
