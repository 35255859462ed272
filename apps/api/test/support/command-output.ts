import type { TestServer } from './server';
import { commandOutputPath } from '../../src/services/command-outputs';

/** A whole command output bigger than any cut preview, its lines numbered (and told apart by `tag`). */
export const wholeOutput = (tag: string) => Array.from({ length: 3_000 }, (_, n) => `${tag} line ${n}\n`).join('');

/**
 * What a worker leaves for a cut command output (decision 0073): the whole output stored in the
 * project's command-output area, and a log entry naming it.
 */
export async function storeCutCommandOutput(
  server: Pick<TestServer, 'deps'>,
  projectId: string,
  workflowId: string,
  whole: string,
): Promise<void> {
  const area = server.deps.storage.commandOutputs(projectId);
  await area.writeBuffer(await area.resolve(commandOutputPath(workflowId, 'whole')), Buffer.from(whole));
  await server.deps.db.executionLogEntry.create({
    data: {
      workflow_id: workflowId,
      seq: 1,
      step_index: 0,
      tool_name: 'execute_on_worker',
      tool_input: { command: 'make' },
      output: '[exit code 0]\n…[cut]…\n',
      output_object: 'whole',
      output_total_bytes: Buffer.byteLength(whole),
    },
  });
}
