import { TestWorker } from '@svc/test-kit';
import type { OutputLineTimes } from '@svc/protocol';
import { TEST_PROVIDERS } from '../support/server';
import { body, createWorkflow } from '../support/fixtures';
import { workerSuite } from '../ws/clients';

const LINE_TIMES: OutputLineTimes = {
  started_at: '2026-11-28T10:00:00.000Z',
  lines: [
    [0, null],
    [1, 120],
    [3, 2_480],
  ],
};

/** Decision 0080: the line times a worker sends with a log entry are stored and given back with it. */
describe.each(TEST_PROVIDERS)('log line times on %s', (provider) => {
  const suite = workerSuite(provider);

  it('keeps the per-line times of a stored output, and null for an entry without them', async () => {
    const worker = await TestWorker.start(suite.server, suite.token, 'line-times');
    suite.workers.push(worker);
    const workflow = (await createWorkflow(suite.server, suite.alice, suite.projectId)) as { id: string };
    const { last_seq } = await worker.dispatch(workflow.id, 'start');
    const entry = (extra: object) => ({
      kind: 'log_entry' as const,
      data: {
        step_index: 0,
        tool_name: 'execute_on_worker',
        tool_input: { command: 'make' },
        output: '[exit code 0]\none\ntwo\nthree\n',
        is_error: false,
        duration_ms: 2_500,
        ...extra,
      },
    });
    await worker.store(workflow.id, last_seq + 1, entry({ output_line_times: LINE_TIMES }));
    await worker.store(workflow.id, last_seq + 2, entry({}));

    const log = await body<{ items: { output_line_times: OutputLineTimes | null }[] }>(
      await suite.server.request(`/svc/api/workflows/${workflow.id}/log`, { as: suite.alice }),
    );
    expect(log.items.map((item) => item.output_line_times)).toEqual([LINE_TIMES, null]);
  });
});
