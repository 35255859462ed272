import type { AgentState } from '@svc/agent-core';
import type { LogEntryUpdateData, QuestionOptions } from '@svc/protocol';
import type { ChatModel } from '../llm/llm-client';
import type { PendingCall } from '../mcp/approval';
import type { OutputObject, Tool, ToolContext } from '../tools/tool';
import type { Job, LoopDeps } from './deps';
import type { WorkflowUpdates } from './updates';

/** What the phase functions (planning, execution, revise, report) see of a running workflow. */
export interface RunContext {
  readonly deps: LoopDeps;
  readonly job: Job;
  readonly llm: ChatModel;
  readonly signal: AbortSignal;
  readonly updates: WorkflowUpdates;
  /** The agent state; change it only through `apply`. */
  readonly state: AgentState;
  /** Takes the state of an agent-core transition and reports the new snapshot. */
  apply(transition: { state: AgentState }): void;
  /**
   * Puts a question to the user (status waiting_user), waits for the answer, records it and
   * restores `resumeStatus`. Rejects with AbortedError when the workflow is cancelled. `options` (choices,
   * default, timeout) go to the server with the question; the server enforces them (decision 0075).
   */
  askUser(question: string, resumeStatus: 'planning' | 'running', options?: QuestionOptions): Promise<string>;
  /** Uploads workspace changes since the last sync and reports them as `file_changed`. */
  syncWorkspace(): Promise<void>;
  toolContext(stepIndex: number | null): ToolContext;
  /** The run's MCP tools: `read-only` for planning, `all` for execution. */
  mcpTools(which: 'read-only' | 'all'): Tool[];
  /** Runs an MCP call a person approved, bounded in time and output. */
  runApprovedCall(call: PendingCall): Promise<{ text: string; isError: boolean; outputObject?: OutputObject }>;
  log(entry: LogEntryUpdateData): void;
  /** A step is done: its changes become a commit of the run's repository titled as the step (when it has one). */
  commitStep(stepIndex: number): Promise<void>;
}
