import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startToolEnv, TOOL_WORKFLOW, type ToolEnv } from '../../../test/support/tool-env';
import { toolSpec } from '../invoke';
import { listTemplates } from './list-templates';
import { submitPlan } from './submit-plan';
import { useTemplate } from './use-template';

let env: ToolEnv;
beforeAll(async () => {
  env = await startToolEnv();
});
afterAll(() => env.close());

describe('list_templates', () => {
  it('lists template names and descriptions', async () => {
    env.harness.rest.templates = [
      { name: 'react-vite', description: 'React + Vite SPA' },
      { name: 'express-api', description: '' },
    ];
    expect((await env.call(listTemplates, {})).result.output).toBe(
      '- react-vite: React + Vite SPA\n- express-api: (no description)',
    );
    env.harness.rest.templates = [];
    expect((await env.call(listTemplates, {})).result.output).toBe('No templates are available.');
  });
});

describe('use_template', () => {
  it('has the server copy the template and pulls it into the local workspace', async () => {
    env.harness.rest.templateFiles.set('react-vite', { 'package.json': '{"name":"app"}', 'src/main.tsx': 'render()' });
    const { result } = await env.call(useTemplate, { name: 'react-vite' }, null);
    expect(result).toEqual({
      output: 'Template "react-vite" is now in the workspace (2 files):\n- package.json\n- src/main.tsx',
      isError: false,
    });
    const dir = path.join(env.harness.workspaceRoot, TOOL_WORKFLOW);
    expect(readFileSync(path.join(dir, 'src/main.tsx'), 'utf8')).toBe('render()');
  });

  it('reports an unknown template as an error the agent can read', async () => {
    const { result } = await env.call(useTemplate, { name: 'nope' }, null);
    expect(result).toEqual({
      output: 'use_template failed: POST /svc/api/workflows/wf-tools/template: no template nope',
      isError: true,
    });
    expect(existsSync(path.join(env.harness.workspaceRoot, TOOL_WORKFLOW, 'nope'))).toBe(false);
  });
});

describe('submit_plan', () => {
  it('hands the steps to the loop', async () => {
    const steps = [{ title: 'Scaffold', description: 'Create the project.' }];
    const { result } = await env.call(submitPlan, { steps }, null);
    expect(result).toEqual({
      output: 'Plan accepted with 1 step.',
      isError: false,
      effect: { kind: 'submit_plan', steps },
    });
  });

  it('rejects an empty plan and steps without a title', async () => {
    expect((await env.call(submitPlan, { steps: [] }, null)).result).toMatchObject({
      isError: true,
      output: expect.stringContaining('steps:'),
    });
    expect((await env.call(submitPlan, { steps: [{ title: ' ', description: 'x' }] }, null)).result.output).toContain(
      'steps.0.title',
    );
  });

  it('describes its parameters to the LLM as JSON schema', () => {
    const spec = toolSpec(submitPlan);
    expect(spec.function.name).toBe('submit_plan');
    expect(spec.function.parameters).toMatchObject({
      type: 'object',
      required: ['steps'],
      properties: {
        steps: { type: 'array', minItems: 1, items: { type: 'object', required: ['title', 'description'] } },
      },
    });
    expect(spec.function.parameters).not.toHaveProperty('$schema');
  });
});
