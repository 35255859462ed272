import type { DispatchBudget, DispatchRepository, McpServerConfig } from '@svc/protocol';
import type { ServerApi } from '../api/server-api';
import type { WorkerConfig } from '../config';
import type { Executor } from '../executor/executor';
import type { LeaseFence } from '../link/lease-fence';
import type { ServerLink } from '../link/server-link';
import type { ChatModel } from '../llm/llm-client';
import type { Prompts } from '../prompts';
import type { RunSecrets } from '../secrets/run-secrets';
import type { WorkflowSecrets } from '../secrets/workflow-secrets';
import type { Logger } from '../util/logger';
import type { WorkspaceSync } from '../workspace/sync';

/** Everything the agent loop uses, built once by the CLI (or a test). */
export interface LoopDeps {
  config: Pick<
    WorkerConfig,
    | 'name'
    | 'toolOutputMaxBytes'
    | 'commandOutputMaxBytes'
    | 'commandTimeoutSeconds'
    | 'maxTurnsPerStep'
    | 'appBaseUrl'
    | 'serverUrl'
    | 'stepDiffMaxBytes'
    | 'mcpTimeoutSeconds'
    | 'mcpServers'
  >;
  prompts: Prompts;
  api: ServerApi;
  /** The LLM client for one workflow (its calls are reported as that workflow's `llm_call`s). */
  llmFor(workflowId: string): ChatModel;
  executor: Executor;
  workspace: WorkspaceSync;
  link: ServerLink;
  /** The secrets each workflow's work here holds now: the link and the LLM client mask by them. */
  secrets: WorkflowSecrets;
  /** Holds back a run's commands while it is fenced or its earlier updates are unacknowledged (decision 0062). */
  fence?: Pick<LeaseFence, 'beforeCommand' | 'beforeUpload'>;
  /** This worker's server id, once registered. */
  workerId(): string | undefined;
  logger: Logger;
}

/** The workflow a loop runs for. */
export interface Job {
  workflowId: string;
  projectId: string;
  requirement: string;
  /** the server's link to the built app (`app_url` of the dispatch), when it sent one */
  appUrl?: string | null;
  /** the run's budget and the spend the server counted at the dispatch; absent: no budget */
  budget?: DispatchBudget;
  /** the secrets of the dispatch that started this run (memory only; gone with the run) */
  secrets?: RunSecrets;
  /** the run's MCP servers: the worker's and the project's (a project server replaces one of the same name) */
  mcpServers?: McpServerConfig[];
  /** the git repository the run works in (decision 0046): cloned, committed per step and pushed by the worker */
  repository?: DispatchRepository;
}
