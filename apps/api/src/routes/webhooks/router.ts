import { auditContextOf, recordAudit, resourceAudit } from '../../audit/record';
import type { Request } from 'express';
import type { Db, Webhook } from '@svc/db';
import type { CreateWebhookRequest, UpdateWebhookRequest } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import type { Handlers, OperationHandler } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { DomainError, invalidInput, notFound } from '../../domain/errors';
import { authorizeProject } from '../../policies/access';
import { deleteWebhookSecret, newWebhookSecret } from '../../webhooks';
import { presentDelivery, presentWebhook } from '../../wire/webhook';
import { actorOf } from '../workflows/actions';

const DEFAULT_DELIVERIES = 50;
/** The attempts shown per delivery (the latest). */
const ATTEMPTS_SHOWN = 20;

/** A live webhook the caller may manage: one of a project they cannot see answers like an unknown id. */
async function manageableWebhook(db: Db, req: Request, id: string): Promise<Webhook> {
  const hook = await db.webhook.findFirst({ where: { id, deleted_at: null } });
  if (!hook) throw notFound('webhook not found');
  await authorizeProject(db, principalOf(req), hook.project_id, 'webhook.manage').catch((error: unknown) => {
    throw error instanceof DomainError && error.code === 'not_found' ? notFound('webhook not found') : error;
  });
  return hook;
}

const columnsOf = (body: CreateWebhookRequest | UpdateWebhookRequest) => ({
  ...(body.url !== undefined ? { url: body.url.trim() } : {}),
  ...(body.events !== undefined ? { events: JSON.stringify([...new Set(body.events)]) } : {}),
  ...(body.description !== undefined ? { description: body.description } : {}),
  ...(body.active !== undefined ? { active: body.active } : {}),
});

/** Outbound webhooks of a project: members manage them; the secret is shown at create and rotation only. */
/** Named by its host: a chat service's webhook URL is itself a credential. */
const webhookAudit = (action: string, hook: Webhook, changed?: string[]) =>
  resourceAudit(action, { ...hook, type: 'webhook', name: new URL(hook.url).host }, changed);

export function webhookHandlers(
  deps: AppDeps,
): Handlers<
  | 'listWebhooks'
  | 'createWebhook'
  | 'getWebhook'
  | 'updateWebhook'
  | 'deleteWebhook'
  | 'listWebhookDeliveries'
  | 'redeliverWebhookDelivery'
> {
  const { db, webhooks } = deps;
  const checkUrl = (url: string | undefined) => {
    const problem = url === undefined ? null : webhooks.targetProblem(url.trim());
    if (problem) throw invalidInput(`body.${problem}`);
  };

  const listWebhooks: OperationHandler<'listWebhooks'> = async (req, res, input) => {
    const { project } = await authorizeProject(db, principalOf(req), input.params.id, 'webhook.manage');
    const rows = await db.webhook.findMany({
      where: { project_id: project.id, deleted_at: null },
      orderBy: [{ created_at: 'asc' }, { id: 'asc' }],
    });
    res.json(rows.map(presentWebhook));
  };

  const createWebhook: OperationHandler<'createWebhook'> = async (req, res, input) => {
    const principal = principalOf(req);
    const { project } = await authorizeProject(db, principal, input.params.id, 'webhook.manage');
    const actor = actorOf(principal);
    const body = input.body();
    checkUrl(body.url);
    const secret = newWebhookSecret();
    const row = await db.$transaction(async (tx) => {
      const made = await tx.webhook.create({
        data: { events: '[]', ...columnsOf(body), url: body.url.trim(), project_id: project.id, created_by: actor.id },
      });
      await webhooks.storeSecret(tx, made, secret, actor.id);
      await recordAudit(tx, auditContextOf(req), webhookAudit('webhook.created', made));
      return made;
    });
    res.status(201).json({ ...presentWebhook(row), secret });
  };

  const getWebhook: OperationHandler<'getWebhook'> = async (req, res, input) => {
    res.json(presentWebhook(await manageableWebhook(db, req, input.params.id)));
  };

  const updateWebhook: OperationHandler<'updateWebhook'> = async (req, res, input) => {
    const hook = await manageableWebhook(db, req, input.params.id);
    const actor = actorOf(principalOf(req));
    const body = input.body();
    checkUrl(body.url);
    const secret = body.rotate_secret ? newWebhookSecret() : undefined;
    const row = await db.$transaction(async (tx) => {
      const updated = await tx.webhook.update({ where: { id: hook.id }, data: columnsOf(body) });
      if (secret) await webhooks.storeSecret(tx, updated, secret, actor.id);
      await recordAudit(tx, auditContextOf(req), webhookAudit('webhook.updated', updated, Object.keys(body)));
      return updated;
    });
    res.json({ ...presentWebhook(row), ...(secret ? { secret } : {}) });
  };

  /** Soft: nothing more is delivered, the secret is gone; the delivery log stays until the project goes. */
  const deleteWebhook: OperationHandler<'deleteWebhook'> = async (req, res, input) => {
    const hook = await manageableWebhook(db, req, input.params.id);
    await db.$transaction(async (tx) => {
      await tx.webhook.update({ where: { id: hook.id }, data: { deleted_at: new Date(), active: false } });
      await deleteWebhookSecret(tx, hook.id);
      await recordAudit(tx, auditContextOf(req), webhookAudit('webhook.deleted', hook));
      await tx.webhookDelivery.updateMany({
        where: { webhook_id: hook.id, state: 'pending' },
        data: { state: 'failed', last_error: 'the webhook was deleted', updated_at: new Date() },
      });
    });
    res.status(204).end();
  };

  const listWebhookDeliveries: OperationHandler<'listWebhookDeliveries'> = async (req, res, input) => {
    const hook = await manageableWebhook(db, req, input.params.id);
    const { limit } = input.query();
    const rows = await db.webhookDelivery.findMany({
      where: { webhook_id: hook.id },
      orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
      take: limit ?? DEFAULT_DELIVERIES,
    });
    const attempts = await db.webhookAttempt.findMany({
      where: { delivery_id: { in: rows.map((r) => r.id) } },
      orderBy: [{ at: 'desc' }, { attempt: 'desc' }],
    });
    res.json(
      rows.map((row) =>
        presentDelivery(row, attempts.filter((a) => a.delivery_id === row.id).slice(0, ATTEMPTS_SHOWN)),
      ),
    );
  };

  const redeliverWebhookDelivery: OperationHandler<'redeliverWebhookDelivery'> = async (req, res, input) => {
    const hook = await manageableWebhook(db, req, input.params.id);
    const delivery = await db.webhookDelivery.findFirst({ where: { id: input.params.did, webhook_id: hook.id } });
    if (!delivery) throw notFound('delivery not found');
    const row = await webhooks.redeliver(delivery.id);
    const attempts = await db.webhookAttempt.findMany({
      where: { delivery_id: row.id },
      orderBy: [{ at: 'desc' }, { attempt: 'desc' }],
      take: ATTEMPTS_SHOWN,
    });
    res.status(202).json(presentDelivery(row, attempts));
  };

  return {
    listWebhooks,
    createWebhook,
    getWebhook,
    updateWebhook,
    deleteWebhook,
    listWebhookDeliveries,
    redeliverWebhookDelivery,
  };
}
