import { existsSync } from 'node:fs';
import path from 'node:path';
import type { LogEntryUpdateData } from '@svc/protocol';
import { SERVER_SETUP_MS, startToolEnv, type ToolEnv } from '../../test/support/tool-env';
import { EXECUTION_TOOLS } from '../tools/registry';
import type { ToolEffect } from '../tools/tool';
import { NoProgressError, runConversation } from './conversation';

let env: ToolEnv;
beforeAll(async () => {
  env = await startToolEnv({ config: { tool_output_max_bytes: 512 } });
}, SERVER_SETUP_MS);
afterAll(() => env?.close());
beforeEach(() => env.harness.llm.reset());

async function converse(maxTurns = 5) {
  const logs: LogEntryUpdateData[] = [];
  const effects: ToolEffect[] = [];
  const result = await runConversation({
    llm: env.harness.worker.deps.llmFor(env.workflowId),
    phase: 'executing',
    stepIndex: 0,
    messages: [
      { role: 'system', content: '# svc:execution' },
      { role: 'user', content: 'Step 1 of 1' },
    ],
    tools: EXECUTION_TOOLS,
    toolContext: env.context(0),
    maxTurns,
    outputMaxBytes: 512,
    nudge: 'Use a tool.',
    onLog: (entry) => logs.push(entry),
    onEffect: async (effect) => {
      effects.push(effect);
      return { stop: effect.kind === 'advance_step' };
    },
  });
  return { result, logs, effects };
}

const bodies = () =>
  env.harness.llm.requests.map((r) => r.body as { messages: Array<{ role: string; content?: unknown }> });

describe('runConversation', () => {
  it('nudges a reply without tool calls and reports unknown tools back to the LLM', async () => {
    env.harness.llm.setScript({
      rules: [
        {
          select: 'by_turn',
          responses: [
            { content: 'Let me think.' },
            { tool_calls: [{ name: 'fly_to_moon' }] },
            { tool_calls: [{ name: 'advance_step', arguments: { summary: 'ok' } }] },
          ],
        },
      ],
    });
    const { result, logs, effects } = await converse();
    expect(result).toEqual({ stoppedBy: { kind: 'advance_step', summary: 'ok' }, turns: 3 });
    expect(bodies()[1]?.messages.at(-1)).toEqual({ role: 'user', content: 'Use a tool.' });
    expect(logs[0]).toMatchObject({
      tool_name: 'fly_to_moon',
      is_error: true,
      output: expect.stringContaining('Unknown tool "fly_to_moon". Available tools: execute_on_worker,'),
    });
    expect(effects).toEqual([{ kind: 'advance_step', summary: 'ok' }]);
  });

  it('cuts tool output to the byte budget with a marker before it enters the context', async () => {
    await env.setKb(`# Umlauts\n\n${'ü'.repeat(2000)}`);
    env.harness.llm.setScript({
      rules: [
        {
          select: 'by_turn',
          responses: [
            { tool_calls: [{ name: 'kb_read' }] },
            { tool_calls: [{ name: 'advance_step', arguments: { summary: 'ok' } }] },
          ],
        },
      ],
    });
    const { logs } = await converse();
    const output = logs[0]?.output ?? '';
    expect(Buffer.byteLength(output)).toBeLessThanOrEqual(512);
    expect(output).toMatch(/ü…\[truncated \d+ bytes\]$/);
    const toolMessage = bodies()[1]?.messages.find((m) => m.role === 'tool');
    expect(toolMessage?.content).toBe(output);
  });

  it('does not run calls that follow the one ending the phase', async () => {
    env.harness.llm.setScript({
      rules: [
        {
          responses: [
            {
              tool_calls: [
                { name: 'advance_step', arguments: { summary: 'ok' } },
                { name: 'write_file', arguments: { path: 'late.txt', content: 'x' } },
              ],
            },
          ],
        },
      ],
    });
    const { logs } = await converse();
    expect(logs.map((l) => l.tool_name)).toEqual(['advance_step']);
    expect(existsSync(path.join(env.workspaceDir, 'late.txt'))).toBe(false);
  });

  it('gives up after its turn budget', async () => {
    env.harness.llm.setScript({ rules: [{ repeat_last: true, responses: [{ content: 'Still thinking.' }] }] });
    await expect(converse(3)).rejects.toThrow(new NoProgressError('no progress after 3 LLM turns (executing step 1)'));
    expect(env.harness.llm.requests).toHaveLength(3);
  });
});
