import { existsSync } from 'node:fs';
import path from 'node:path';
import { advance, plan, scriptedAgent, type ScriptedHandler } from '@svc/scripted-llm';
import { eventually } from '@svc/test-kit';
import type { CliStack } from './stack';

/** Step 1's command says it started, then waits for the test's `go` file; each command appends to ran.txt. */
const WAIT_FOR_GO = 'touch started; while [ ! -f go ]; do sleep 0.05; done; echo one >> ran.txt';

/** A two-step agent whose first command waits for the test (see `startedRun`); the second writes "two". */
export const gatedTwoLineAgent = (title: string): ScriptedHandler =>
  scriptedAgent({
    title,
    planning: [plan('Wait for the signal', 'Write the second line')],
    steps: {
      1: [{ name: 'execute_on_worker', arguments: { command: WAIT_FOR_GO } }, advance('waited')],
      2: [{ name: 'execute_on_worker', arguments: { command: 'echo two >> ran.txt' } }, advance('written')],
    },
  });

/** A file of the run's workspace on the stack's worker (`go` lets step 1's command end). */
export const workspaceFile = (stack: CliStack, id: string, name: string): string =>
  path.join(stack.dir, 'worker-workspaces', id, name);

/** A run (`svc run`) whose step 1 command has started and waits for its `go` file. */
export async function startedRun(stack: CliStack, requirement: string): Promise<string> {
  const id = (await stack.svcExiting(['run', '-p', 'ci', requirement], 0)).stdout.trim();
  await eventually(() => existsSync(workspaceFile(stack, id, 'started')), {
    what: 'step 1 command to start',
    detail: stack.diagnostics,
  });
  return id;
}
