import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Workflow } from '@svc/protocol';
import { E2E_TIMEOUT_MS, startStack, type CliStack } from '../support/stack';
import { gatedTwoLineAgent, startedRun as startedRunOn, workspaceFile as workspaceFileOf } from '../support/gated-run';

const handler = gatedTwoLineAgent('Two lines');

// Issue 23, pause and resume from the CLI (decision 0039): `svc pause [--interrupt]`, `svc resume [--follow]`.
describe('svc pause and svc resume against a real server, worker and scripted LLM', () => {
  let stack: CliStack;

  beforeAll(async () => {
    stack = await startStack(handler);
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    await stack?.close();
  });

  const svc = (args: string[], expected: number) => stack.svcExiting(args, expected);
  const workspaceFile = (id: string, name: string) => workspaceFileOf(stack, id, name);
  const startedRun = (requirement: string) => startedRunOn(stack, requirement);

  it(
    'pauses after the running command, shows the step it stopped in, refuses a second pause (exit 1, 409) and resumes to the end',
    async () => {
      const id = await startedRun('Wait for a signal, then write two lines.');

      // The pause is asked for; the run is still running until its command finishes.
      const asked = JSON.parse((await svc(['--json', 'pause', id], 0)).stdout) as Workflow;
      expect(asked).toMatchObject({ id, status: 'running' });
      writeFileSync(workspaceFile(id, 'go'), '');
      await stack.waitForStatus(id, 'paused');
      expect(readFileSync(workspaceFile(id, 'ran.txt'), 'utf8')).toBe('one\n');

      const status = (await svc(['status', id], 0)).stdout;
      expect(status.trimEnd().split('\n')).toEqual([
        `${id}  paused  Two lines`,
        '  [>] 1. Wait for the signal',
        '  [ ] 2. Write the second line',
      ]);

      const again = await svc(['--json', 'pause', id], 1);
      expect(JSON.parse(again.stderr)).toMatchObject({
        error: { code: 'conflict', status: 409, message: 'the workflow is paused already (status is paused)' },
      });
      expect((await svc(['pause', id], 1)).stderr).toContain('svc: the workflow is paused already');

      const resumed = await svc(['resume', id, '--follow', '--no-input'], 0);
      expect(resumed.stderr).toContain(`svc: resumed; ${id} is running`);
      expect((await stack.workflow(id)).status).toBe('completed');
      expect(readFileSync(workspaceFile(id, 'ran.txt'), 'utf8')).toBe('one\ntwo\n');

      // Nothing to resume any more.
      const late = await svc(['--json', 'resume', id], 1);
      expect(JSON.parse(late.stderr)).toMatchObject({ error: { code: 'conflict', status: 409 } });
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'with --interrupt kills the running command, and svc resume --json lets the run go on',
    async () => {
      const id = await startedRun('Wait for a signal that never comes.');

      const asked = await svc(['pause', id, '--interrupt'], 0);
      expect(asked.stdout.trim()).toBe(`pausing ${id}: its running command is interrupted, then it is paused`);
      await stack.waitForStatus(id, 'paused');
      expect(existsSync(workspaceFile(id, 'ran.txt'))).toBe(false);

      const resumed = JSON.parse((await svc(['--json', 'resume', id], 0)).stdout) as Workflow;
      expect(resumed).toMatchObject({ id, status: 'running' });
      await stack.waitForStatus(id, 'completed');
      // The interrupted command never finished and was not run again; step 2's did run.
      expect(readFileSync(workspaceFile(id, 'ran.txt'), 'utf8')).toBe('two\n');
    },
    E2E_TIMEOUT_MS,
  );
});
