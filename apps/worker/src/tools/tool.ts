import type { PlannedStep } from '@svc/agent-core';
import type { OutputLineTimes, OutputObject } from '@svc/protocol';
import type { z } from 'zod';
import type { QuestionOptions } from '@svc/protocol';
import type { ServerApi } from '../api/server-api';
import type { RemoteExecRequest } from '../link/server-link';
import type { PendingCall } from '../mcp/approval';

/** A state change a tool asks the loop to make through @svc/agent-core. */
export type ToolEffect =
  | { kind: 'submit_plan'; steps: PlannedStep[] }
  | { kind: 'advance_step'; summary: string }
  | { kind: 'save_memo'; note: string }
  | ({ kind: 'ask_user'; question: string } & QuestionOptions)
  | { kind: 'set_timer'; seconds: number; reason: string }
  /** an MCP tool call that waits for a person's approval (decision 0042) */
  | { kind: 'mcp_approval'; question: string; call: PendingCall };

export interface ToolResult {
  output: string;
  isError: boolean;
  effect?: ToolEffect;
  /** A command's whole output, stored on the server when `output` had to be cut (decision 0073). */
  outputObject?: OutputObject;
  /** When the lines of `output` started (decision 0080). */
  lineTimes?: OutputLineTimes;
}

export type { OutputObject };

export type ToolApi = Pick<
  ServerApi,
  'kbText' | 'kbSearch' | 'listWorkers' | 'listTemplates' | 'useTemplate' | 'createTimer'
>;

export interface CommandOutcome {
  text: string;
  isError: boolean;
  outputObject?: OutputObject;
  lineTimes?: OutputLineTimes;
}

/** Everything a tool may touch, handed in by the loop for one workflow (and step). */
export interface ToolContext {
  workflowId: string;
  projectId: string;
  stepIndex: number | null;
  /** Absolute workspace directory of the workflow. */
  workspaceDir: string;
  /** This worker's name and (once registered) server id, to tell local from remote commands. */
  self: { name: string; id: string | undefined };
  api: ToolApi;
  commandTimeoutSeconds: number;
  /** Bytes of tool output that reach the LLM; tools with their own cutting aim below it. */
  outputMaxBytes: number;
  runLocal(command: string, timeoutSeconds: number): Promise<CommandOutcome>;
  runRemote(request: RemoteExecRequest): Promise<CommandOutcome>;
  /** Stores a tool's whole text result that its log entry holds cut (an MCP tool's, decision 0081). */
  keepWholeText?(text: string): Promise<OutputObject | undefined>;
  /** Re-pulls the workspace from the server (after the server changed it, e.g. a template). */
  refreshWorkspace(): Promise<string[]>;
  signal: AbortSignal;
  /** The run's secret values in `text` masked: a tool's output is, before it enters the conversation. */
  maskSecrets?(text: string): string;
  /** Called by the loop between tool calls and before each LLM call: where a paused run waits. */
  atToolBoundary?(): Promise<void>;
}

/**
 * One tool: a name, a description and a zod parameter schema the LLM sees as JSON schema. A tool
 * described elsewhere (an MCP server's) brings its own `jsonSchema`, offered as is; its `parameters`
 * then only require an object (the server checks the rest).
 */
export interface Tool<S extends z.ZodObject = z.ZodObject> {
  name: string;
  description: string;
  parameters: S;
  jsonSchema?: Record<string, unknown>;
  // Method syntax keeps Tool<Specific> assignable to Tool (parameter bivariance).
  run(input: z.output<S>, ctx: ToolContext): Promise<ToolResult>;
}

export function defineTool<S extends z.ZodObject>(tool: Tool<S>): Tool<S> {
  return tool;
}

export const ok = (output: string, effect?: ToolEffect): ToolResult =>
  effect ? { output, isError: false, effect } : { output, isError: false };
export const fail = (output: string): ToolResult => ({ output, isError: true });
