import { auditContextOf, recordAudit, resourceAudit } from '../../audit/record';
import type { Request } from 'express';
import type { Db, Trigger } from '@svc/db';
import type { CreateTriggerRequest, UpdateTriggerRequest } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import type { Handlers, OperationHandler } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { DomainError, invalidInput, notFound } from '../../domain/errors';
import { authorizeProject, authorizeWorkflow } from '../../policies/access';
import { newTriggerSecret } from '../../triggers/signature';
import { presentDelivery, presentTrigger } from '../../wire/trigger';
import { actorOf } from '../workflows/actions';

const DEFAULT_DELIVERIES = 50;

/** A live trigger the caller may manage: a trigger of a project they cannot see answers like an unknown id. */
async function manageableTrigger(db: Db, req: Request, id: string): Promise<Trigger> {
  const trigger = await db.trigger.findFirst({ where: { id, deleted_at: null } });
  if (!trigger) throw notFound('trigger not found');
  await authorizeProject(db, principalOf(req), trigger.project_id, 'trigger.manage').catch((error: unknown) => {
    throw error instanceof DomainError && error.code === 'not_found' ? notFound('trigger not found') : error;
  });
  return trigger;
}

const triggerAudit = (action: string, trigger: Trigger, changed?: string[]) =>
  resourceAudit(action, { ...trigger, type: 'trigger' }, changed);

/** Checks what a trigger names (template, worker) the way a workflow create would. */
async function checkNames(deps: AppDeps, body: Pick<UpdateTriggerRequest, 'template' | 'worker_id'>): Promise<void> {
  if (body.template && !(await deps.templates.list()).some((t) => t.name === body.template))
    throw invalidInput(`body.template: no template named ${JSON.stringify(body.template)}`);
  if (body.worker_id) {
    const worker = await deps.db.worker.findFirst({
      where: { OR: [{ id: body.worker_id }, { name: body.worker_id }] },
    });
    if (!worker) throw invalidInput('body.worker_id: no worker with that id or name');
  }
}

const columnsOf = (body: CreateTriggerRequest | UpdateTriggerRequest) => ({
  ...(body.name !== undefined ? { name: body.name.trim() } : {}),
  ...(body.format !== undefined ? { format: body.format } : {}),
  ...(body.requirement_template !== undefined ? { requirement_template: body.requirement_template } : {}),
  ...(body.events !== undefined ? { events: JSON.stringify([...new Set(body.events)]) } : {}),
  ...(body.template !== undefined ? { template: body.template } : {}),
  ...(body.worker_id !== undefined ? { worker_id: body.worker_id } : {}),
  ...(body.rate_limit_per_minute !== undefined ? { rate_limit_per_minute: body.rate_limit_per_minute } : {}),
  ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
});

/** Inbound triggers of a project: members manage them; the secret is shown at create and rotate only. */
export function triggerHandlers(
  deps: AppDeps,
): Handlers<
  | 'listTriggers'
  | 'createTrigger'
  | 'getTrigger'
  | 'updateTrigger'
  | 'deleteTrigger'
  | 'rotateTriggerSecret'
  | 'listTriggerDeliveries'
  | 'getWorkflowTrigger'
> {
  const { db } = deps;
  const present = (row: Trigger) => presentTrigger(row, deps.config.publicUrl);
  const withSecret = (row: Trigger) => ({ ...present(row), secret: row.secret });

  const listTriggers: OperationHandler<'listTriggers'> = async (req, res, input) => {
    const { project } = await authorizeProject(db, principalOf(req), input.params.id, 'trigger.manage');
    const rows = await db.trigger.findMany({
      where: { project_id: project.id, deleted_at: null },
      orderBy: [{ created_at: 'asc' }, { id: 'asc' }],
    });
    res.json(rows.map(present));
  };

  const createTrigger: OperationHandler<'createTrigger'> = async (req, res, input) => {
    const principal = principalOf(req);
    const { project } = await authorizeProject(db, principal, input.params.id, 'trigger.manage');
    const actor = actorOf(principal);
    const body = input.body();
    await checkNames(deps, body);
    const row = await db.$transaction(async (tx) => {
      const created = await tx.trigger.create({
        data: {
          format: 'github',
          ...columnsOf(body),
          name: body.name.trim(),
          requirement_template: body.requirement_template,
          project_id: project.id,
          secret: newTriggerSecret(),
          // no window yet: the first delivery opens one (rate-limit.ts)
          window_started_at: new Date(0),
          created_by: actor.id,
        },
      });
      await recordAudit(tx, auditContextOf(req), triggerAudit('trigger.created', created));
      return created;
    });
    res.status(201).location(`/svc/api/triggers/${row.id}`).json(withSecret(row));
  };

  const getTrigger: OperationHandler<'getTrigger'> = async (req, res, input) => {
    res.json(present(await manageableTrigger(db, req, input.params.id)));
  };

  const updateTrigger: OperationHandler<'updateTrigger'> = async (req, res, input) => {
    const trigger = await manageableTrigger(db, req, input.params.id);
    const body = input.body();
    await checkNames(deps, body);
    const row = await db.$transaction(async (tx) => {
      const updated = await tx.trigger.update({ where: { id: trigger.id }, data: columnsOf(body) });
      await recordAudit(tx, auditContextOf(req), triggerAudit('trigger.updated', updated, Object.keys(body)));
      return updated;
    });
    res.json(present(row));
  };

  /** Soft: the URL answers 404 at once, the runs it started keep their deliveries and payloads. */
  const deleteTrigger: OperationHandler<'deleteTrigger'> = async (req, res, input) => {
    const trigger = await manageableTrigger(db, req, input.params.id);
    await db.$transaction(async (tx) => {
      await tx.trigger.update({ where: { id: trigger.id }, data: { deleted_at: new Date(), enabled: false } });
      await recordAudit(tx, auditContextOf(req), triggerAudit('trigger.deleted', trigger));
    });
    res.status(204).end();
  };

  const rotateTriggerSecret: OperationHandler<'rotateTriggerSecret'> = async (req, res, input) => {
    const trigger = await manageableTrigger(db, req, input.params.id);
    const row = await db.$transaction(async (tx) => {
      const rotated = await tx.trigger.update({ where: { id: trigger.id }, data: { secret: newTriggerSecret() } });
      await recordAudit(tx, auditContextOf(req), triggerAudit('trigger.secret_rotated', rotated));
      return rotated;
    });
    res.json(withSecret(row));
  };

  const listTriggerDeliveries: OperationHandler<'listTriggerDeliveries'> = async (req, res, input) => {
    const trigger = await manageableTrigger(db, req, input.params.id);
    const { limit } = input.query();
    const rows = await db.triggerDelivery.findMany({
      where: { trigger_id: trigger.id },
      orderBy: [{ received_at: 'desc' }, { id: 'desc' }],
      take: limit ?? DEFAULT_DELIVERIES,
    });
    res.json(rows.map(presentDelivery));
  };

  const getWorkflowTrigger: OperationHandler<'getWorkflowTrigger'> = async (req, res, input) => {
    const { workflow } = await authorizeWorkflow(db, principalOf(req), input.params.id, 'workflow.read');
    const delivery = await db.triggerDelivery.findUnique({
      where: { workflow_id: workflow.id },
      include: { trigger: { select: { name: true } } },
    });
    if (!delivery) throw notFound('this run was not started by a trigger');
    res.json({
      trigger_id: delivery.trigger_id,
      trigger_name: delivery.trigger.name,
      delivery_id: delivery.delivery_id,
      event: delivery.event,
      received_at: delivery.received_at.toISOString(),
      payload: JSON.parse(delivery.payload) as unknown,
    });
  };

  return {
    listTriggers,
    createTrigger,
    getTrigger,
    updateTrigger,
    deleteTrigger,
    rotateTriggerSecret,
    listTriggerDeliveries,
    getWorkflowTrigger,
  };
}
