import type { Command } from 'commander';
import { WorkerSchema } from '@svc/protocol';
import type { Context } from '../context';
import { EXIT } from '../errors';

type Action = (ctx: Context, ...args: never[]) => Promise<number> | number;
type Run = (action: Action) => (this: Command, ...args: unknown[]) => Promise<void>;

/** `svc workers pause|resume|drain <id>`: an administrator takes a worker out of dispatch or back (decision 0074). */
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
}
