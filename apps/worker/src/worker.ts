import { startWorkerMetricsListener, workerMetricsFor } from './metrics/metrics';
import { setTimeout as delay } from 'node:timers/promises';
import { ServerApi } from './api/server-api';
import type { WorkerConfig } from './config';
import { Executor } from './executor/executor';
import { LocalJobTokenSigner, ServerJobTokens, type JobTokenSource } from './executor/job-token';
import { Sandbox } from './executor/sandbox';
import type { LinkError } from './link/server-link';
import { LeaseFence } from './link/lease-fence';
import { Uplink } from './link/uplink';
import { WorkerLink } from './link/worker-link';
import { LlmClient } from './llm/llm-client';
import type { LoopDeps } from './loop/deps';
import { WorkflowManager } from './loop/manager';
import type { Prompts } from './prompts';
import { MaskedModel } from './secrets/masked-model';
import { WorkflowSecrets } from './secrets/workflow-secrets';
import { errorMessage, type Logger } from './util/logger';
import { scheduleGitCachePruning } from './workspace/git-cache';
import { WorkspaceSync } from './workspace/sync';

export const WORKER_VERSION = '0.1.0';

export interface WorkerOptions {
  config: WorkerConfig;
  prompts: Prompts;
  /** The worker's environment: the base environment of the commands it runs. */
  baseEnv: Readonly<Record<string, string | undefined>>;
  hostname: string;
  logger: Logger;
  /** `svc-worker --once`: capacity 1, one run, then `manager.onceEnded` resolves (ephemeral runners). */
  once?: boolean;
  /** Called when the server will never accept this worker; the CLI exits. */
  onFatal?: (error: LinkError) => void;
  /** Overrides for tests (faster reconnects and LLM retries). */
  reconnect?: { baseMs: number; maxMs: number };
  llmRetry?: { baseMs: number; maxMs: number };
  serverRetry?: { baseMs: number; maxMs: number };
}

export interface RunningWorker {
  link: WorkerLink;
  /** What goes to the server (updates awaiting their ack, exec relays). */
  uplink: Uplink;
  manager: WorkflowManager;
  deps: LoopDeps;
  /** where the worker serves `/metrics` (`metrics_listen`); null: it does not */
  metricsUrl: string | null;
  /** Stops the loops (killing their commands), waits briefly for updates to be acked, disconnects. */
  stop(drainMs?: number): Promise<void>;
}

/** Builds the worker from its config and connects it to the server. */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const { config, logger } = options;
  // Commands never run unsandboxed by accident: a sandbox that does not work here stops the start.
  const sandbox = new Sandbox(config.sandbox);
  await sandbox.check();
  for (const warning of sandbox.warnings()) logger.warn({ sandbox: config.sandbox.mode }, warning);
  // Aborted when the worker gives up for good: REST calls stop retrying an unreachable server then.
  const lifetime = new AbortController();
  const api = new ServerApi({
    serverUrl: config.serverUrl,
    token: config.token,
    signal: lifetime.signal,
    logger,
    ...(options.serverRetry ? { retry: { ...options.serverRetry, jitter: 0.5 } } : {}),
  });
  const jobTokens: JobTokenSource = config.jwtPrivateKey
    ? await LocalJobTokenSigner.fromPemFile(config.jwtPrivateKey, {
        issuer: config.jwtIssuer,
        audience: config.jwtAudience,
      })
    : new ServerJobTokens(api);
  const executor = new Executor({
    baseEnv: options.baseEnv,
    secretEnvNames: config.secretEnvNames,
    passEnvNames: config.commandEnvNames,
    sandbox,
    serverUrl: config.serverUrl,
    workspaceRoot: config.workspaceRoot,
    jobTokens,
    defaultTimeoutSeconds: config.commandTimeoutSeconds,
  });
  // Built in dependency order: the uplink (what goes to the server) needs nothing; the manager
  // sends through it; the link opens it on registration and hands the server's requests to the manager.
  // Everything sent for a workflow passes the uplink and (LLM requests) MaskedModel: both mask with
  // the secrets its work here holds (decision 0041).
  const secrets = new WorkflowSecrets();
  // The worker's metrics (metrics_listen): counted from what it sends; the runs from the manager below.
  let runsInProgress = () => 0;
  const metrics = workerMetricsFor(config.metricsListen, () => runsInProgress());
  const uplink = new Uplink({
    logger,
    window: config.updateWindow,
    maskerFor: (id) => secrets.maskerFor(id),
    onUpdate: metrics?.observe,
  });
  const llm = new LlmClient(config.llm, {
    logger,
    retryBaseMs: options.llmRetry?.baseMs,
    retryMaxMs: options.llmRetry?.maxMs,
    detailMaxBytes: config.llmDetailMaxBytes,
    onCall: (workflowId, record) => {
      if (workflowId) uplink.sendUpdate(workflowId, { kind: 'llm_call', data: record });
    },
  });
  // Fences the manager's runs when the lease is up and stops those the server took back (decision 0062).
  const fence = new LeaseFence({
    runs: () => manager.activeWorkflows(),
    unacknowledged: (id) => uplink.outbox.hasProgress(id),
    onLost: (id) => manager.lost(id),
    logger,
  });
  const deps: LoopDeps = {
    config,
    prompts: options.prompts,
    api,
    llmFor: (workflowId) => new MaskedModel(llm.forWorkflow(workflowId), () => secrets.maskerFor(workflowId)),
    executor,
    workspace: new WorkspaceSync(api, config.workspaceRoot),
    link: uplink,
    secrets,
    workerId: () => uplink.workerId,
    fence,
    logger,
  };
  const capacity = options.once ? 1 : config.capacity;
  const manager = new WorkflowManager(deps, capacity, { once: options.once });
  runsInProgress = () => manager.running;
  const metricsListener = await startWorkerMetricsListener(metrics, config.metricsListen, logger);
  const link = new WorkerLink({
    serverUrl: config.serverUrl,
    token: config.token,
    registration: {
      name: config.name,
      labels: config.labels,
      capacity,
      version: WORKER_VERSION,
      hostname: options.hostname,
      ...(options.once ? { once: true } : {}),
    },
    uplink,
    handlers: manager,
    onFatal: (error) => options.onFatal?.(error),
    reconnect: options.reconnect ? { ...options.reconnect, jitter: 0.5 } : undefined,
    logger,
    fence,
  });
  link.start();
  const stopPruning = scheduleGitCachePruning(deps.workspace.gitCacheDir(), config.gitCacheMaxAgeDays, logger);
  return {
    link,
    uplink,
    manager,
    deps,
    metricsUrl: metricsListener.url,
    async stop(drainMs = 5000) {
      // The runs' last uploads get `drainMs` while the server cannot be reached, then give up.
      const giveUp = setTimeout(() => lifetime.abort(), drainMs);
      await manager
        .shutdown()
        .catch((err: unknown) => logger.warn({ error: errorMessage(err) }, 'shutdown of workflow runs failed'));
      const deadline = Date.now() + drainMs;
      while (uplink.outbox.size > 0 && link.isRegistered && Date.now() < deadline) await delay(50);
      clearTimeout(giveUp);
      stopPruning();
      lifetime.abort();
      fence.stop();
      link.stop();
      await metricsListener.close();
    },
  };
}
