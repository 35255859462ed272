import { Option, type Command } from 'commander';
import {
  SecretEventPageSchema,
  SecretInfoSchema,
  SecretListSchema,
  SecretNameSchema,
  type SecretEvent,
  type SecretInfo,
  type SecretVisibility,
} from '@svc/protocol';
import type { Context } from '../context';
import { EXIT, usageError } from '../errors';
import { readSecretInput } from '../secret-input';

type Action = (ctx: Context, ...args: never[]) => Promise<number> | number;
type Run = (action: Action) => (this: Command, ...args: unknown[]) => Promise<void>;

/** `--instance` picks the instance's secrets (administrators) instead of a project's. */
export interface SecretScopeFlags {
  instance?: boolean;
}

export interface SecretSetFlags extends SecretScopeFlags {
  fromFile?: string;
  visibility?: SecretVisibility;
}

/** The REST path of the secrets the flags name: the instance's or the project's (`-p`, SVC_PROJECT, config). */
async function secretsPath(ctx: Context, flags: SecretScopeFlags): Promise<string> {
  if (flags.instance) return '/admin/secrets';
  return `/projects/${encodeURIComponent(await ctx.projectId())}/secrets`;
}

function checkedName(name: string): string {
  const parsed = SecretNameSchema.safeParse(name);
  if (parsed.success) return parsed.data;
  if (name.includes('='))
    throw usageError('give only the NAME: the value is read from stdin or --from-file, never from the command line');
  throw usageError(`bad secret name "${name}": ${parsed.error.issues[0]?.message}`);
}

const who = (actor: { name: string } | null) => actor?.name ?? 'unknown';

function secretLine(s: SecretInfo): string {
  const visibility = s.visibility ? `  ${s.visibility.padEnd(9)}` : '';
  return `${s.name}${visibility}  ${s.updated_at}  ${who(s.updated_by)}`;
}

function eventLine(e: SecretEvent): string {
  const scope = e.scope === 'instance' ? ' (instance)' : '';
  const detail = e.kind === 'used' ? `run ${e.workflow_id ?? '?'}` : `by ${who(e.actor)}`;
  return `${e.at}  ${e.kind.padEnd(7)}  ${e.name}${scope}  ${detail}`;
}

export async function secretList(ctx: Context, flags: SecretScopeFlags): Promise<number> {
  const { items } = await ctx.client().request(await secretsPath(ctx, flags), SecretListSchema);
  ctx.result(items, () => items.map(secretLine).join('\n'));
  return EXIT.ok;
}

export async function secretSet(ctx: Context, nameArg: string, flags: SecretSetFlags): Promise<number> {
  const name = checkedName(nameArg);
  if (flags.visibility && !flags.instance) throw usageError('--visibility is for instance secrets (--instance)');
  const path = await secretsPath(ctx, flags);
  const value = await readSecretInput(ctx, flags.fromFile, {
    prompt: 'svc: type the value, then a new line and Ctrl-D (or pipe it in, or --from-file)',
    missing: 'no value: pipe it to stdin or give --from-file',
  });
  const body = flags.instance ? { value, visibility: flags.visibility ?? 'all' } : { value };
  const saved = await ctx
    .client()
    .request(`${path}/${encodeURIComponent(name)}`, SecretInfoSchema, { method: 'PUT', json: body });
  ctx.result(saved, `saved secret ${saved.name}`);
  return EXIT.ok;
}

export async function secretDelete(ctx: Context, nameArg: string, flags: SecretScopeFlags): Promise<number> {
  const name = checkedName(nameArg);
  const path = await secretsPath(ctx, flags);
  await ctx.client().requestVoid(`${path}/${encodeURIComponent(name)}`, { method: 'DELETE' });
  ctx.result({ name, deleted: true }, `deleted secret ${name}`);
  return EXIT.ok;
}

export interface SecretEventsFlags extends SecretScopeFlags {
  limit?: number;
  cursor?: string;
}

export async function secretEvents(ctx: Context, flags: SecretEventsFlags): Promise<number> {
  const page = await ctx.client().request(`${await secretsPath(ctx, flags)}/events`, SecretEventPageSchema, {
    query: { limit: flags.limit, cursor: flags.cursor },
  });
  ctx.result(page, () => page.items.map(eventLine).join('\n'));
  if (!ctx.json && page.next_cursor) ctx.note(`svc: older events: --cursor ${page.next_cursor}`);
  return EXIT.ok;
}

/** `svc secret list|set|delete|events`: a project's secrets (owners write), or with --instance the instance's. */
export function registerSecretCommands(program: Command, run: Run, project: () => Option): void {
  const instance = () =>
    new Option('--instance', "the instance's secrets (administrators) instead of a project's").conflicts('project');
  const secret = program
    .command('secret')
    .alias('secrets')
    .description("a project's secrets (or --instance): names only, values are write-only");
  secret
    .command('list')
    .alias('ls')
    .description('the secrets by name, who changed each and when (never a value)')
    .addOption(project())
    .addOption(instance())
    .action(run((ctx, flags: SecretScopeFlags) => secretList(ctx, flags)));
  secret
    .command('set')
    .description('create or replace a secret; the value is read from stdin (or --from-file), never from arguments')
    .argument('<name>', 'secret name, e.g. DEPLOY_TOKEN (runs get it as $DEPLOY_TOKEN)')
    .addOption(project())
    .addOption(instance())
    .option('--from-file <file>', 'read the value from this file (one trailing newline is dropped)')
    .addOption(
      new Option(
        '--visibility <who>',
        'instance secrets: all runs, or only runs of templates naming it in .svc-secrets',
      ).choices(['all', 'templates']),
    )
    .action(run((ctx, name: string, flags: SecretSetFlags) => secretSet(ctx, name, flags)));
  secret
    .command('delete')
    .alias('rm')
    .description('delete a secret (runs started from now on no longer get it)')
    .argument('<name>', 'secret name')
    .addOption(project())
    .addOption(instance())
    .action(run((ctx, name: string, flags: SecretScopeFlags) => secretDelete(ctx, name, flags)));
  secret
    .command('events')
    .description('who changed which secret, and which runs received it; latest first')
    .addOption(project())
    .addOption(instance())
    .option('--limit <n>', 'at most this many', (v) => Number.parseInt(v, 10))
    .option('--cursor <cursor>', 'the page after the one that printed this cursor')
    .action(run((ctx, flags: SecretEventsFlags) => secretEvents(ctx, flags)));
}
