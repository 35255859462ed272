import { toolSpec } from './invoke';
import { EXECUTION_TOOLS, PLANNING_TOOLS, REVISE_TOOLS } from './registry';

describe('tools by phase (CONTRACT section 5)', () => {
  it('gives planning and execution exactly their tools', () => {
    expect(PLANNING_TOOLS.map((t) => t.name)).toEqual([
      'kb_search',
      'kb_read',
      'list_workers',
      'list_templates',
      'use_template',
      'ask_user',
      'submit_plan',
    ]);
    expect(EXECUTION_TOOLS.map((t) => t.name)).toEqual([
      'execute_on_worker',
      'advance_step',
      'save_memo',
      'ask_user',
      'kb_search',
      'kb_read',
      'list_workers',
      'set_timer',
      'read_file',
      'write_file',
    ]);
    expect(REVISE_TOOLS.map((t) => t.name)).toEqual(['submit_plan']);
  });

  it('exposes every tool as an object JSON schema with a description', () => {
    for (const tool of [...PLANNING_TOOLS, ...EXECUTION_TOOLS]) {
      const spec = toolSpec(tool);
      expect(spec.function.description?.length).toBeGreaterThan(20);
      expect(spec.function.parameters).toMatchObject({ type: 'object', additionalProperties: false });
    }
    expect(toolSpec(EXECUTION_TOOLS[0]!).function.parameters).toMatchObject({
      required: ['command'],
      properties: { command: { type: 'string' }, worker: { type: 'string' }, timeout_seconds: { type: 'number' } },
    });
  });
});
