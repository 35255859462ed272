export { startWorker, WORKER_VERSION, type RunningWorker, type WorkerOptions } from './worker';
export {
  ConfigError,
  loadConfig,
  parseConfigText,
  resolveConfig,
  type ConfigContext,
  type LlmConfig,
  type WorkerConfig,
} from './config';
export { DEFAULT_PROMPTS_DIR, loadPrompts, PROMPT_NAMES, PromptsError, type PromptName, type Prompts } from './prompts';
export { ServerApi, ApiError } from './api/server-api';
export {
  WorkerLink,
  workerSocketUrl,
  WORKER_WS_PATH,
  type LinkHandlers,
  type WorkerLinkOptions,
} from './link/worker-link';
export { Outbox } from './link/outbox';
export { Uplink, type SendMessage, type UplinkOptions } from './link/uplink';
export { LinkError, type RemoteExecRequest, type ServerLink } from './link/server-link';
export { LlmClient, LlmError, type ChatModel, type ChatRequest, type ChatResponse } from './llm/llm-client';
export { Executor, describeCommandResult, CAPTURE_MAX_BYTES, type ExecRequest } from './executor/executor';
export { runCommand, type CommandResult, type CommandSpec } from './executor/run-command';
export { LocalJobTokenSigner, ServerJobTokens, JobTokenError, type JobTokenSource } from './executor/job-token';
export { WorkspaceSync, hashTree, diffTrees, IGNORED_DIRS, type TreeState } from './workspace/sync';
export { WorkflowManager } from './loop/manager';
export { WorkflowRun, type RunEnd, type RunRequest } from './loop/runner';
export { stepMessages, planningMessages } from './loop/context';
export { PLANNING_TOOLS, EXECUTION_TOOLS, REVISE_TOOLS } from './tools/registry';
export { toolSpec, invokeTool } from './tools/invoke';
export type { Tool, ToolContext, ToolEffect, ToolResult } from './tools/tool';
