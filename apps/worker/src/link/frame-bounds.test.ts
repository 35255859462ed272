import { WORKER_MAX_PAYLOAD_BYTES, type UpdateMessage } from '@svc/protocol';
import { fitFrame, jsonBytes, MAX_MESSAGE_BYTES } from './frame-bounds';

const logEntry = (output: string, input: Record<string, unknown> = { command: 'make' }): UpdateMessage => ({
  type: 'update',
  workflow_id: 'wf1',
  seq: 7,
  kind: 'log_entry',
  data: { step_index: 0, tool_name: 'execute_on_worker', tool_input: input, output, is_error: false },
});

describe('fitFrame', () => {
  it('returns a message that fits as it is', () => {
    const message = logEntry('short');
    expect(fitFrame(message)).toBe(message);
  });

  it('cuts the longest texts UTF-8-safely until the message fits the shared frame limit', () => {
    // 6 MB of output made of 3-byte characters and escapes, plus a 2 MB write_file body.
    const output = '€\n'.repeat(1_500_000);
    const message = logEntry(output, { path: 'a.txt', content: 'ü'.repeat(1_000_000) });
    expect(jsonBytes(message)).toBeGreaterThan(WORKER_MAX_PAYLOAD_BYTES);
    const fitted = fitFrame(message) as Extract<UpdateMessage, { kind: 'log_entry' }>;
    expect(fitted).not.toBeNull();
    expect(jsonBytes(fitted)).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    expect(fitted.data.output).toMatch(/…\[truncated \d+ bytes\]$/);
    expect(fitted.data.output).not.toContain('\uFFFD');
    expect(output.startsWith(fitted.data.output.replace(/…\[truncated \d+ bytes\]$/, ''))).toBe(true);
    expect(fitted.data.tool_input.path).toBe('a.txt');
    expect(fitted.workflow_id).toBe('wf1');
    // The original is left alone (the agent's own state keeps it).
    expect((message.data as { output: string }).output).toBe(output);
  });

  it('cuts several memos of a snapshot when no single one is enough', () => {
    const memo = Array.from({ length: 6 }, (_, i) => `${i}`.repeat(1_000_000));
    const message: UpdateMessage = {
      type: 'update',
      workflow_id: 'wf1',
      seq: 1,
      kind: 'snapshot',
      data: { phase: 'executing', current_step: 0, steps: [{ title: 't', description: 'd', status: 'running' }], memo },
    };
    const fitted = fitFrame(message, 1_000_000) as Extract<UpdateMessage, { kind: 'snapshot' }>;
    expect(jsonBytes(fitted)).toBeLessThanOrEqual(1_000_000);
    expect(fitted.data.memo).toHaveLength(6);
    expect(fitted.data.steps[0]!.title).toBe('t');
  });

  it('gives up (null) when short fields alone exceed the limit', () => {
    const many = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, 'short value']));
    expect(fitFrame(logEntry('x', many), 1000)).toBeNull();
  });
});
