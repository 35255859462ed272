import { ProjectSchema } from '@svc/protocol';
import type { Context } from '../context';
import { EXIT, usageError } from '../errors';

/** `svc run`'s priority and concurrency flags, as the create request's fields (decision 0037). */
export interface ConcurrencyFlags {
  priority?: string;
  concurrencyKey?: string;
  cancelInProgress?: boolean;
}

export function concurrencyFields(flags: ConcurrencyFlags): Record<string, unknown> {
  if (flags.cancelInProgress && flags.concurrencyKey === undefined)
    throw usageError('--cancel-in-progress needs --concurrency-key');
  return {
    priority: flags.priority === undefined ? undefined : wholeNumber('--priority', flags.priority),
    concurrency_key: flags.concurrencyKey,
    concurrency_mode: flags.cancelInProgress ? 'cancel_in_progress' : undefined,
  };
}

/** `svc projects set <project> --max-running <n|none>`: an owner's project settings. */
export async function projectSetCommand(
  ctx: Context,
  projectId: string,
  flags: { maxRunning?: string },
): Promise<number> {
  if (flags.maxRunning === undefined) throw usageError('nothing to set: pass --max-running <n|none>');
  const maxRunning = flags.maxRunning === 'none' ? null : wholeNumber('--max-running', flags.maxRunning);
  const project = await ctx.client().request(`/projects/${encodeURIComponent(projectId)}`, ProjectSchema, {
    method: 'PATCH',
    json: { max_running: maxRunning },
  });
  ctx.result(project, `${project.id}  max_running=${project.max_running ?? 'none'}`);
  return EXIT.ok;
}

function wholeNumber(flag: string, text: string): number {
  if (!/^-?\d+$/.test(text)) throw usageError(`${flag} must be a whole number, got ${JSON.stringify(text)}`);
  return Number.parseInt(text, 10);
}
