import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { SERVER_SETUP_MS, startToolEnv, type ToolEnv } from '../../../test/support/tool-env';
import { toolSpec } from '../invoke';
import { listTemplates } from './list-templates';
import { submitPlan } from './submit-plan';
import { useTemplate } from './use-template';

let env: ToolEnv;
beforeAll(async () => {
  // The server's template repository: one branch per template.
  env = await startToolEnv({
    templates: {
      'react-vite': {
        'README.md': '# React + Vite SPA\n',
        'package.json': '{"name":"app"}',
        'src/main.tsx': 'render()',
      },
      'express-api': { 'server.js': 'listen()' },
    },
  });
}, SERVER_SETUP_MS);
afterAll(() => env?.close());

describe('list_templates', () => {
  it('lists template names and descriptions', async () => {
    expect((await env.call(listTemplates, {})).result.output).toBe(
      '- express-api: (no description)\n- react-vite: React + Vite SPA',
    );
  });
});

describe('use_template', () => {
  it('has the server copy the template and pulls it into the local workspace', async () => {
    const { result } = await env.call(useTemplate, { name: 'react-vite' }, null);
    expect(result).toEqual({
      output: 'Template "react-vite" is now in the workspace (3 files):\n- README.md\n- package.json\n- src/main.tsx',
      isError: false,
    });
    expect(readFileSync(path.join(env.workspaceDir, 'src/main.tsx'), 'utf8')).toBe('render()');
    // the server's copy of the workspace holds it too, and the workflow records the template
    expect(await env.server.alice.file(env.workflowId, 'package.json')).toBe('{"name":"app"}');
    expect((await env.server.alice.workflow(env.workflowId)).template).toBe('react-vite');
  });

  it('reports an unknown template as an error the agent can read', async () => {
    const { result } = await env.call(useTemplate, { name: 'nope' }, null);
    expect(result).toEqual({
      output: `use_template failed: POST /svc/api/workflows/${env.workflowId}/template: no template named "nope"`,
      isError: true,
    });
    expect(existsSync(path.join(env.workspaceDir, 'nope'))).toBe(false);
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
