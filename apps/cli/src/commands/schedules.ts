import { Option, type Command } from 'commander';
import { ScheduleListSchema, ScheduleSchema, type Schedule } from '@svc/protocol';
import type { Context } from '../context';
import { EXIT } from '../errors';
import { textFrom } from './workflows';

type Action = (ctx: Context, ...args: never[]) => Promise<number> | number;
type Run = (action: Action) => (this: Command, ...args: unknown[]) => Promise<void>;

export interface ScheduleCreateFlags {
  cron: string;
  tz?: string;
  file?: string;
  template?: string;
  worker?: string;
  overlap?: string;
  catchUp?: string;
}

const schedulePath = (id: string) => `/schedules/${encodeURIComponent(id)}`;

/** One line per schedule: id, name, cron and zone, state, next fire time. */
function scheduleLine(s: Schedule): string {
  const state = s.paused ? 'paused' : `next ${s.next_runs[0] ?? '-'}`;
  return `${s.id}  ${s.name}  ${s.cron} (${s.timezone})  ${s.overlap}/${s.catch_up}  ${state}`;
}

function scheduleDetail(s: Schedule): string {
  return [
    scheduleLine(s),
    `requirement: ${s.requirement}`,
    ...s.next_runs.map((t) => `  next: ${t}`),
    ...s.recent_ticks.map(
      (t) =>
        `  tick ${t.tick_at}: ${t.outcome}${t.workflow_id ? ` ${t.workflow_id}` : ''}${t.reason ? ` (${t.reason})` : ''}${t.caught_up ? ' [caught up]' : ''}`,
    ),
  ].join('\n');
}

export async function schedulesLs(ctx: Context): Promise<number> {
  const projectId = await ctx.projectId();
  const list = await ctx.client().request(`/projects/${encodeURIComponent(projectId)}/schedules`, ScheduleListSchema);
  ctx.result(list, () => list.map(scheduleLine).join('\n'));
  return EXIT.ok;
}

export async function schedulesShow(ctx: Context, id: string): Promise<number> {
  const schedule = await ctx.client().request(schedulePath(id), ScheduleSchema);
  ctx.result(schedule, () => scheduleDetail(schedule));
  return EXIT.ok;
}

export async function schedulesCreate(
  ctx: Context,
  name: string,
  requirementArg: string | undefined,
  flags: ScheduleCreateFlags,
): Promise<number> {
  const requirement = await textFrom(ctx, 'requirement', requirementArg, flags.file);
  const projectId = await ctx.projectId();
  const schedule = await ctx.client().request(`/projects/${encodeURIComponent(projectId)}/schedules`, ScheduleSchema, {
    method: 'POST',
    json: {
      name,
      cron: flags.cron,
      timezone: flags.tz,
      requirement,
      template: flags.template,
      worker_id: flags.worker,
      overlap: flags.overlap,
      catch_up: flags.catchUp,
    },
  });
  ctx.result(schedule, () => scheduleDetail(schedule));
  return EXIT.ok;
}

async function setPaused(ctx: Context, id: string, action: 'pause' | 'resume'): Promise<number> {
  const schedule = await ctx.client().request(`${schedulePath(id)}/${action}`, ScheduleSchema, {
    method: 'POST',
    json: {},
  });
  ctx.result(schedule, () => scheduleLine(schedule));
  return EXIT.ok;
}

export async function schedulesRm(ctx: Context, id: string): Promise<number> {
  await ctx.client().requestVoid(schedulePath(id), { method: 'DELETE' });
  ctx.result({ id, deleted: true }, `deleted schedule ${id}`);
  return EXIT.ok;
}

/** `svc schedules ls|show|create|pause|resume|rm`. */
export function registerScheduleCommands(program: Command, run: Run, project: () => Option): void {
  const schedules = program.command('schedules').description("a project's schedules: cron ticks that each start a run");
  schedules
    .command('ls', { isDefault: true })
    .description('the schedules of a project, with their next fire time')
    .addOption(project())
    .action(run((ctx) => schedulesLs(ctx)));
  schedules
    .command('show')
    .description('a schedule with its next fire times and latest ticks')
    .argument('<schedule>', 'schedule id')
    .action(run((ctx, id: string) => schedulesShow(ctx, id)));
  schedules
    .command('create')
    .description('create a schedule: each tick of --cron starts a run of the requirement as you')
    .argument('<name>', 'schedule name (unique in the project)')
    .argument('[requirement]', 'the requirement text, or - for stdin')
    .addOption(project())
    .requiredOption('--cron <expr>', "5 fields, or 6 with seconds first, e.g. '0 9 * * 1-5' or '*/30 * * * * *'")
    .option('--tz <zone>', 'IANA time zone of the cron fields (default UTC)')
    .option('-f, --file <file>', 'read the requirement from a file')
    .option('--template <name>', 'start each run from this template')
    .option('--worker <id|name>', 'run on this worker')
    .addOption(
      new Option('--overlap <rule>', 'while the previous run is unfinished (default skip)').choices([
        'skip',
        'queue_one',
        'allow',
      ]),
    )
    .addOption(
      new Option('--catch-up <rule>', 'ticks missed while the server was down (default none)').choices([
        'none',
        'latest',
      ]),
    )
    .action(
      run((ctx, name: string, requirement: string | undefined, flags: ScheduleCreateFlags) =>
        schedulesCreate(ctx, name, requirement, flags),
      ),
    );
  for (const action of ['pause', 'resume'] as const)
    schedules
      .command(action)
      .description(action === 'pause' ? 'pause a schedule' : 'resume a paused schedule (missed ticks are not run)')
      .argument('<schedule>', 'schedule id')
      .action(run((ctx, id: string) => setPaused(ctx, id, action)));
  schedules
    .command('rm')
    .description('delete a schedule (its runs stay)')
    .argument('<schedule>', 'schedule id')
    .action(run((ctx, id: string) => schedulesRm(ctx, id)));
}
