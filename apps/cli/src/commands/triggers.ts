import { Option, type Command } from 'commander';
import {
  TriggerDeliveryListSchema,
  TriggerListSchema,
  TriggerWithSecretSchema,
  type Trigger,
  type TriggerFormat,
} from '@svc/protocol';
import type { Context } from '../context';
import { EXIT } from '../errors';
import { textFrom } from './workflows';

export interface TriggerCreateFlags {
  name: string;
  file?: string;
  format?: TriggerFormat;
  event?: string[];
  template?: string;
  worker?: string;
  rateLimit?: number;
}

const triggerPath = (id: string) => `/triggers/${encodeURIComponent(id)}`;
const line = (t: Trigger) => `${t.id}  ${t.enabled ? 'on ' : 'off'}  ${t.format.padEnd(11)}  ${t.name}  ${t.url}`;

/** The secret goes to stdout once, with the URL a sender needs; it cannot be read again. */
const shown = (t: Trigger & { secret: string }) => `url:    ${t.url}\nsecret: ${t.secret}`;

export async function triggersLs(ctx: Context): Promise<number> {
  const projectId = await ctx.projectId();
  const triggers = await ctx.client().request(`/projects/${encodeURIComponent(projectId)}/triggers`, TriggerListSchema);
  ctx.result(triggers, () => triggers.map(line).join('\n'));
  return EXIT.ok;
}

export async function triggersCreate(
  ctx: Context,
  templateArg: string | undefined,
  flags: TriggerCreateFlags,
): Promise<number> {
  const requirementTemplate = await textFrom(ctx, 'requirement template', templateArg, flags.file);
  const projectId = await ctx.projectId();
  const made = await ctx
    .client()
    .request(`/projects/${encodeURIComponent(projectId)}/triggers`, TriggerWithSecretSchema, {
      method: 'POST',
      json: {
        name: flags.name,
        requirement_template: requirementTemplate,
        format: flags.format,
        events: flags.event,
        template: flags.template,
        worker_id: flags.worker,
        rate_limit_per_minute: flags.rateLimit,
      },
    });
  ctx.result(made, () => `${made.id}\n${shown(made)}`);
  if (!ctx.json) ctx.note('svc: the secret is shown this once (svc triggers rotate makes a new one)');
  return EXIT.ok;
}

export async function triggersRotate(ctx: Context, id: string): Promise<number> {
  const rotated = await ctx
    .client()
    .request(`${triggerPath(id)}/rotate-secret`, TriggerWithSecretSchema, { method: 'POST' });
  ctx.result(rotated, () => shown(rotated));
  if (!ctx.json) ctx.note('svc: the old secret no longer verifies deliveries');
  return EXIT.ok;
}

export async function triggersRm(ctx: Context, id: string): Promise<number> {
  await ctx.client().requestVoid(triggerPath(id), { method: 'DELETE' });
  ctx.result({ id, deleted: true }, `deleted trigger ${id}`);
  return EXIT.ok;
}

export async function triggersDeliveries(ctx: Context, id: string, flags: { limit?: number }): Promise<number> {
  const deliveries = await ctx
    .client()
    .request(`${triggerPath(id)}/deliveries`, TriggerDeliveryListSchema, { query: { limit: flags.limit } });
  ctx.result(deliveries, () =>
    deliveries.map((d) => `${d.received_at}  ${d.event.padEnd(16)}  ${d.delivery_id}  ${d.workflow_id}`).join('\n'),
  );
  return EXIT.ok;
}

/** How program.ts runs an action with its Context (its `run`). */
type Run = (
  action: (ctx: Context, ...args: never[]) => Promise<number> | number,
) => (this: Command, ...args: unknown[]) => Promise<void>;

/** `svc triggers ls|create|rotate|rm|deliveries`, added to the program by program.ts. */
export function addTriggerCommands(program: Command, run: Run, project: () => Option): void {
  const triggers = program
    .command('triggers')
    .description("a project's inbound triggers (signed webhooks that start runs)");
  triggers
    .command('ls', { isDefault: true })
    .description("the project's triggers")
    .addOption(project())
    .action(run((ctx) => triggersLs(ctx)));
  triggers
    .command('create')
    .description('create a trigger; prints its id, URL and secret (shown this once)')
    .argument('[template]', 'requirement template, e.g. "Fix #{{issue.number}}: {{issue.title}}" (- for stdin)')
    .addOption(project())
    .requiredOption('--name <name>', 'name of the trigger')
    .option('-f, --file <file>', 'read the requirement template from a file')
    .addOption(new Option('--format <format>', 'signature form').choices(['github', 'timestamped']).default('github'))
    .option('--event <event>', 'start runs only for this event (e.g. issues.opened; repeatable)', collect, undefined)
    .option('--template <name>', 'runs start from this template')
    .option('--worker <id|name>', 'runs go to this worker')
    .option('--rate-limit <n>', 'deliveries a minute (default 60)', (v) => Number.parseInt(v, 10))
    .action(
      run((ctx, template: string | undefined, flags: TriggerCreateFlags) => triggersCreate(ctx, template, flags)),
    );
  triggers
    .command('rotate')
    .description('replace the secret (the old one stops verifying at once); prints the new one')
    .argument('<trigger>', 'trigger id')
    .action(run((ctx, id: string) => triggersRotate(ctx, id)));
  triggers
    .command('rm')
    .description('delete a trigger (its URL answers 404; its runs keep their payloads)')
    .argument('<trigger>', 'trigger id')
    .action(run((ctx, id: string) => triggersRm(ctx, id)));
  triggers
    .command('deliveries')
    .description("a trigger's accepted deliveries and the runs they started, latest first")
    .argument('<trigger>', 'trigger id')
    .option('--limit <n>', 'at most this many', (v) => Number.parseInt(v, 10))
    .action(run((ctx, id: string, flags: { limit?: number }) => triggersDeliveries(ctx, id, flags)));
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];
