import type { Command, Option } from 'commander';
import {
  UpdatedWebhookSchema,
  WebhookDeliveryListSchema,
  WebhookDeliverySchema,
  WebhookListSchema,
  WebhookWithSecretSchema,
  type Webhook,
  type WebhookDelivery,
} from '@svc/protocol';
import type { Context } from '../context';
import { EXIT } from '../errors';

export interface WebhookCreateFlags {
  event?: string[];
  description?: string;
  inactive?: boolean;
}

const webhookPath = (id: string) => `/webhooks/${encodeURIComponent(id)}`;
const line = (w: Webhook) =>
  `${w.id}  ${w.active ? 'on ' : 'off'}  ${w.url}  ${w.events.length ? w.events.join(',') : '(all events)'}`;
const deliveryLine = (d: WebhookDelivery) =>
  `${d.id}  ${d.created_at}  ${d.event_type.padEnd(23)}  ${d.state.padEnd(9)}  ${String(d.last_status_code ?? '-').padEnd(3)}  ${d.attempts} attempt(s)${d.last_error && d.state !== 'delivered' ? `  ${d.last_error}` : ''}`;

export async function webhookList(ctx: Context): Promise<number> {
  const projectId = await ctx.projectId();
  const hooks = await ctx.client().request(`/projects/${encodeURIComponent(projectId)}/webhooks`, WebhookListSchema);
  ctx.result(hooks, () => hooks.map(line).join('\n'));
  return EXIT.ok;
}

export async function webhookCreate(ctx: Context, url: string, flags: WebhookCreateFlags): Promise<number> {
  const projectId = await ctx.projectId();
  const made = await ctx
    .client()
    .request(`/projects/${encodeURIComponent(projectId)}/webhooks`, WebhookWithSecretSchema, {
      method: 'POST',
      json: {
        url,
        events: flags.event,
        description: flags.description,
        ...(flags.inactive ? { active: false } : {}),
      },
    });
  ctx.result(made, () => `${made.id}\nsecret: ${made.secret}`);
  if (!ctx.json) ctx.note('svc: the secret is shown this once (svc webhook rotate makes a new one)');
  return EXIT.ok;
}

export async function webhookRotate(ctx: Context, id: string): Promise<number> {
  const rotated = await ctx
    .client()
    .request(webhookPath(id), UpdatedWebhookSchema, { method: 'PATCH', json: { rotate_secret: true } });
  ctx.result(rotated, () => `secret: ${rotated.secret ?? ''}`);
  if (!ctx.json) ctx.note('svc: deliveries are signed with the new secret from now on');
  return EXIT.ok;
}

export async function webhookDelete(ctx: Context, id: string): Promise<number> {
  await ctx.client().requestVoid(webhookPath(id), { method: 'DELETE' });
  ctx.result({ id, deleted: true }, `deleted webhook ${id}`);
  return EXIT.ok;
}

export async function webhookDeliveries(ctx: Context, id: string, flags: { limit?: number }): Promise<number> {
  const deliveries = await ctx
    .client()
    .request(`${webhookPath(id)}/deliveries`, WebhookDeliveryListSchema, { query: { limit: flags.limit } });
  ctx.result(deliveries, () => deliveries.map(deliveryLine).join('\n'));
  return EXIT.ok;
}

export async function webhookRedeliver(ctx: Context, id: string, deliveryId: string): Promise<number> {
  const delivery = await ctx
    .client()
    .request(`${webhookPath(id)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`, WebhookDeliverySchema, {
      method: 'POST',
    });
  ctx.result(delivery, () => `redelivering ${delivery.id} (${delivery.event_type})`);
  return EXIT.ok;
}

/** How program.ts runs an action with its Context (its `run`). */
type Run = (
  action: (ctx: Context, ...args: never[]) => Promise<number> | number,
) => (this: Command, ...args: unknown[]) => Promise<void>;

/** `svc webhook list|create|rotate|delete|deliveries|redeliver`, added to the program by program.ts. */
export function addWebhookCommands(program: Command, run: Run, project: () => Option): void {
  const webhook = program
    .command('webhook')
    .alias('webhooks')
    .description("a project's outbound webhooks (signed run events POSTed to your URLs)");
  webhook
    .command('list', { isDefault: true })
    .alias('ls')
    .description("the project's webhooks")
    .addOption(project())
    .action(run((ctx) => webhookList(ctx)));
  webhook
    .command('create')
    .description('subscribe a URL to run events; prints the webhook id and its secret (shown this once)')
    .argument('<url>', 'where deliveries are POSTed (http or https)')
    .addOption(project())
    .option('--event <type>', 'deliver only this event type, e.g. run.completed (repeatable; default all)', collect)
    .option('--description <text>', 'what it is for')
    .option('--inactive', 'create it switched off')
    .action(run((ctx, url: string, flags: WebhookCreateFlags) => webhookCreate(ctx, url, flags)));
  webhook
    .command('rotate')
    .description('replace the signing secret; prints the new one')
    .argument('<webhook>', 'webhook id')
    .action(run((ctx, id: string) => webhookRotate(ctx, id)));
  webhook
    .command('delete')
    .alias('rm')
    .description('delete a webhook (nothing more is delivered; its secret is gone)')
    .argument('<webhook>', 'webhook id')
    .action(run((ctx, id: string) => webhookDelete(ctx, id)));
  webhook
    .command('deliveries')
    .description("a webhook's deliveries, latest first: state, last status code, attempts")
    .argument('<webhook>', 'webhook id')
    .option('--limit <n>', 'at most this many', (v) => Number.parseInt(v, 10))
    .action(run((ctx, id: string, flags: { limit?: number }) => webhookDeliveries(ctx, id, flags)));
  webhook
    .command('redeliver')
    .description('send a delivery again (the same body and delivery id)')
    .argument('<webhook>', 'webhook id')
    .argument('<delivery>', 'delivery id')
    .action(run((ctx, id: string, deliveryId: string) => webhookRedeliver(ctx, id, deliveryId)));
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];
