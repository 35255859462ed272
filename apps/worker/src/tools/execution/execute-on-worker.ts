import { z } from 'zod';
import { defineTool, fail, ok } from '../tool';

export const executeOnWorker = defineTool({
  name: 'execute_on_worker',
  description:
    'Runs a shell command with bash in the workflow workspace and returns its exit code and combined stdout/stderr (long output keeps its beginning and end). Without `worker` it runs on this worker; with `worker` (a name from list_workers) it runs on that worker. Commands are non-interactive; start long-running servers in the background with output redirected to a file.',
  parameters: z
    .object({
      command: z.string().min(1).max(100_000).describe('Shell command, run with bash -c'),
      worker: z.string().trim().min(1).max(200).optional().describe('Another worker to run the command on'),
      timeout_seconds: z
        .number()
        .positive()
        .max(86_400)
        .optional()
        .describe('Time-out; default from the worker config'),
    })
    .strict(),
  async run({ command, worker, timeout_seconds }, ctx) {
    const timeout = timeout_seconds ?? ctx.commandTimeoutSeconds;
    const local = worker === undefined || worker === ctx.self.name || worker === ctx.self.id;
    const outcome = local
      ? await ctx.runLocal(command, timeout)
      : await ctx.runRemote({ targetWorker: worker, workflowId: ctx.workflowId, command, timeoutSeconds: timeout });
    const result = outcome.isError ? fail(outcome.text) : ok(outcome.text);
    return {
      ...result,
      ...(outcome.outputObject ? { outputObject: outcome.outputObject } : {}),
      ...(outcome.lineTimes ? { lineTimes: outcome.lineTimes } : {}),
    };
  },
});
