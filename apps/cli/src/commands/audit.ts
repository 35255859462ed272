import type { Command, Option } from 'commander';
import { AuditEventPageSchema, type AuditEvent } from '@svc/protocol';
import type { Context } from '../context';
import { EXIT, usageError } from '../errors';

type Action = (ctx: Context, ...args: never[]) => Promise<number> | number;
type Run = (action: Action) => (this: Command, ...args: unknown[]) => Promise<void>;

export interface AuditFlags {
  project?: string;
  action?: string;
  actor?: string;
  since?: string;
  until?: string;
  limit?: number;
  cursor?: string;
  jsonl?: boolean;
}

/** An ISO 8601 time, or a duration back from now (`24h`, `7d`, `30m`). */
export function auditTime(value: string, now = Date.now()): string {
  const ago = /^(\d+)([mhd])$/.exec(value);
  if (ago) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000 }[ago[2] as 'm' | 'h' | 'd'];
    return new Date(now - Number(ago[1]) * unit).toISOString();
  }
  const at = new Date(value);
  if (Number.isNaN(at.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(value))
    throw usageError(`bad time "${value}": give an ISO 8601 time (2026-11-27T10:00:00Z) or a duration (24h, 7d)`);
  return at.toISOString();
}

function auditLine(e: AuditEvent): string {
  const actor = e.actor.login ?? (e.actor.id ? `${e.actor.kind}:${e.actor.id}` : e.actor.kind);
  const target = e.target.type ? `${e.target.type}:${e.target.id ?? ''}` : '-';
  const project = e.project_id ? `  project ${e.project_id}` : '';
  return `${e.at}  ${e.action.padEnd(22)}  ${actor}  ${target}${project}  ${e.ip ?? '-'}`;
}

/**
 * `svc audit`: the audit log, newest first. With `--project` a project's (owners), else the whole
 * instance's (administrators). `--jsonl` streams every matching row as JSON lines to stdout.
 */
export async function auditCommand(ctx: Context, flags: AuditFlags): Promise<number> {
  const path = flags.project ? `/projects/${encodeURIComponent(await ctx.projectId())}/audit` : '/admin/audit';
  const filters = {
    action: flags.action,
    actor: flags.actor,
    since: flags.since === undefined ? undefined : auditTime(flags.since),
    until: flags.until === undefined ? undefined : auditTime(flags.until),
  };
  if (flags.jsonl) {
    const response = await ctx
      .client()
      .requestResponse(path, { query: { ...filters, format: 'jsonl' }, accept: 'application/x-ndjson' });
    if (!response.body) return EXIT.ok;
    // Streamed as it arrives: a long export never sits in memory whole. Rows are JSON (escaped already).
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      if (!ctx.io.stdout.write(chunk)) await new Promise((resolve) => ctx.io.stdout.once('drain', resolve));
    }
    return EXIT.ok;
  }
  const page = await ctx.client().request(path, AuditEventPageSchema, {
    query: { ...filters, limit: flags.limit, cursor: flags.cursor },
  });
  ctx.result(page, () => (page.items.length ? page.items.map(auditLine).join('\n') : 'no audit events'));
  if (!ctx.json && page.next_cursor) ctx.note(`svc: older events: --cursor ${page.next_cursor}`);
  return EXIT.ok;
}

/** `svc audit [--project p] [--action prefix] [--actor who] [--since t] [--until t] [--jsonl]`. */
export function registerAuditCommand(program: Command, run: Run, project: () => Option): void {
  program
    .command('audit')
    .description("the audit log, newest first: the instance's (administrators) or with --project a project's (owners)")
    .addOption(project())
    .option('--action <prefix>', 'only actions starting with this, e.g. token. or member.added')
    .option('--actor <id|login>', 'only what this person did')
    .option('--since <time>', 'from this time: ISO 8601, or a duration back from now (24h, 7d)')
    .option('--until <time>', 'before this time: ISO 8601, or a duration back from now')
    .option('--limit <n>', 'rows per page (default 100, at most 1000)', (v) => Number(v))
    .option('--cursor <cursor>', 'the next page (printed on stderr after a full page)')
    .option('--jsonl', 'every matching row as JSON lines on stdout (streamed; for export)')
    .action(run((ctx, flags: AuditFlags) => auditCommand(ctx, flags)));
}
