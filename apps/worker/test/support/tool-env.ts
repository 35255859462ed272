import { createToolContext } from '../../src/loop/tool-context';
import { invokeTool, type Invocation } from '../../src/tools/invoke';
import type { Tool, ToolContext } from '../../src/tools/tool';
import { startHarness, type Harness, type HarnessOptions } from './harness';

export interface ToolEnv {
  harness: Harness;
  /** A real tool context for workflow `wf-tools` (project `p1`). */
  context(stepIndex?: number | null): ToolContext;
  /** Invokes a tool the way the loop does: JSON arguments, schema validation, error capture. */
  call(tool: Tool, args: unknown, stepIndex?: number | null): Promise<Invocation>;
  close(): Promise<void>;
}

export const TOOL_WORKFLOW = 'wf-tools';

/** The real worker's tool context (REST, executor, workspace, link) against local test servers. */
export async function startToolEnv(options: HarnessOptions = {}): Promise<ToolEnv> {
  const harness = await startHarness(options);
  const job = { workflowId: TOOL_WORKFLOW, projectId: 'p1', requirement: 'Test the tools.' };
  harness.worker.deps.link.beginWorkflow(TOOL_WORKFLOW, 0);
  const context = (stepIndex: number | null = 0) =>
    createToolContext(harness.worker.deps, job, stepIndex, new AbortController().signal);
  return {
    harness,
    context,
    call: (tool, args, stepIndex) =>
      invokeTool(tool, typeof args === 'string' ? args : JSON.stringify(args), context(stepIndex)),
    close: () => harness.close(),
  };
}
