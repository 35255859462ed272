import type { Command } from 'commander';
import type { Context } from '../context';
import { act, post, type FollowFlags } from './workflows';

/** `svc pause <id> [--interrupt]`: the run stops at its next tool boundary and its status becomes paused. */
export async function pauseCommand(ctx: Context, workflowId: string, flags: { interrupt?: boolean }): Promise<number> {
  const interrupt = flags.interrupt === true;
  return act(ctx, workflowId, {}, post(ctx, workflowId, 'pause', { interrupt }), (w) =>
    interrupt
      ? `pausing ${w.id}: its running command is interrupted, then it is paused`
      : `pausing ${w.id}: it pauses once its running command has finished`,
  );
}

/** `svc resume <id> [--follow]`: a paused run goes on where it stopped. */
export async function resumeCommand(ctx: Context, workflowId: string, flags: FollowFlags): Promise<number> {
  return act(ctx, workflowId, flags, post(ctx, workflowId, 'resume'), (w) => `resumed; ${w.id} is ${w.status}`);
}

type Run = (action: (ctx: Context, ...args: never[]) => Promise<number>) => (...args: unknown[]) => Promise<void>;

/** Adds `pause` and `resume` to the program (decision 0039). */
export function addPauseCommands(program: Command, run: Run, followOptions: (cmd: Command) => Command): void {
  program
    .command('pause')
    .description('pause a running workflow at its next tool boundary (it waits for svc resume)')
    .argument('<workflow>', 'workflow id')
    .option('--interrupt', 'kill the command running now instead of letting it finish')
    .action(run((ctx, id: string, flags: { interrupt?: boolean }) => pauseCommand(ctx, id, flags)));
  followOptions(
    program
      .command('resume')
      .description('resume a paused workflow where it stopped')
      .argument('<workflow>', 'workflow id'),
  ).action(run((ctx, id: string, flags: FollowFlags) => resumeCommand(ctx, id, flags)));
}
