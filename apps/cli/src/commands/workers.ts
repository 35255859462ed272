import type { Command } from 'commander';
import { WorkerRunPageSchema, WorkerSchema, type WorkerRunPage } from '@svc/protocol';
import type { Context } from '../context';
import { EXIT } from '../errors';
import { runDurationText } from './run-list';

type Action = (ctx: Context, ...args: never[]) => Promise<number> | number;
type Run = (action: Action) => (this: Command, ...args: unknown[]) => Promise<void>;

/**
 * `svc workers pause|resume|drain <id>`: an administrator takes a worker out of dispatch or back (decision
 * 0074); `svc workers runs <id>`: the runs it last took that the caller may see (decision 0078).
 */
export function registerWorkerCommands(program: Command, run: Run): void {
  const workers = program.command('workers').description('worker administration (administrators)');
  const changes = {
    pause: 'stop giving the worker new runs; it finishes the ones it has',
    drain: 'pause the worker; it shows drained once its runs have ended',
    resume: 'give the worker runs again',
  } as const;
  for (const [what, description] of Object.entries(changes)) {
    workers
      .command(what)
      .description(description)
      .argument('<worker>', 'worker id')
      .action(
        run(async (ctx: Context, id: string) => {
          const worker = await ctx
            .client()
            .request(`/admin/workers/${encodeURIComponent(id)}/${what}`, WorkerSchema, { method: 'POST', json: {} });
          ctx.result(
            worker,
            `${worker.id}  ${worker.name}  ${worker.admin_state ?? 'active'}  ${worker.active} running`,
          );
          return EXIT.ok;
        }),
      );
  }
  workers
    .command('runs')
    .description('the runs the worker last took, held now or finished, newest first (in projects you can see)')
    .argument('<worker>', 'worker id')
    .option('--limit <n>', 'rows per page (default 100, at most 1000)', (v) => Number(v))
    .option('--cursor <cursor>', 'the next page (printed after a full page)')
    .action(
      run(async (ctx: Context, id: string, flags: { limit?: number; cursor?: string }) => {
        const page = await ctx.client().request(`/workers/${encodeURIComponent(id)}/runs`, WorkerRunPageSchema, {
          query: { limit: flags.limit, cursor: flags.cursor },
        });
        ctx.result(page, () => workerRunsText(page));
        return EXIT.ok;
      }),
    );
}

/** One line per run (id, status, duration, project #number, title; then its failure), and the next page. */
export function workerRunsText(page: WorkerRunPage): string {
  if (page.items.length === 0) return 'no runs';
  const lines = page.items.flatMap((r) => [
    [
      r.workflow_id,
      r.status.padEnd(12),
      runDurationText(r).padStart(8),
      `${r.project_name} #${r.number}`,
      r.title,
    ].join('  '),
    ...(r.status === 'failed' && r.error ? [`    failed: ${r.error}`] : []),
  ]);
  return [...lines, ...(page.next_cursor ? [`next: --cursor ${page.next_cursor}`] : [])].join('\n');
}
