import {
  prepare,
  queryBuilder,
  rowDecoder,
  sql,
  type AgentStateSnapshot,
  type ExpressionBuilder,
  type Db,
  type DbProvider,
  type McpServer as McpServerRow,
  type Prepared,
  type SqlReader,
  type Tables,
  type Workflow,
} from '@svc/db';
import {
  RESUMED_AFTER_LEASE_LOSS,
  type DispatchAction,
  type DispatchMessage,
  type DispatchRepository,
  type RunSecret,
  type StepHistory,
} from '@svc/protocol';
import { snapshotData } from '../wire/workflow';
import type { WorkerSession } from './worker-session';
import { ensureAppKey, type AppLinks } from '../apps/app-link';
import { dispatchBudgetOf } from '../workflows/budgets';
import { decodeRequires, satisfies } from '../domain/routing';
import { mcpServerConfigOf } from '../wire/mcp-server';
import { ofRunsIn, type RunSecrets } from '../secrets/run-secrets';
import { traceparentOf } from '@svc/observability';
import { stepHistoryOf } from './step-history';

/**
 * Whether the run's project has enabled MCP servers, the project or instance secrets, the run a
 * repository and a stored snapshot: read with a claimed run's row (`dispatchHints`), so a dispatch skips
 * the reads of what does not exist. Absent (another read of the row): each is read. PostgreSQL answers
 * booleans, SQLite 0 or 1.
 */
export interface DispatchHints {
  has_mcp_servers?: boolean | number;
  has_secrets?: boolean | number;
  has_repository?: boolean | number;
  /** a run whose only stored updates are its title job's has none: it starts afresh */
  has_snapshot?: boolean | number;
}

const knownAbsent = (hint: boolean | number | undefined) => hint === false || hint === 0;

/** The hints' columns, for a select of `workflows`. */
export function dispatchHints(eb: ExpressionBuilder<Tables, 'workflows'>) {
  return [
    eb
      .exists(
        eb
          .selectFrom('mcp_servers as m')
          .select(sql.lit(1).as('one'))
          .whereRef('m.project_id', '=', 'workflows.project_id')
          .where('m.enabled', '=', true),
      )
      .as('has_mcp_servers'),
    eb
      .exists(
        eb
          .selectFrom('secrets')
          .select(sql.lit(1).as('one'))
          .where((inner) => ofRunsIn(inner, inner.ref('workflows.project_id'))),
      )
      .as('has_secrets'),
    eb
      .exists(
        eb
          .selectFrom('workflow_repositories as l')
          .select(sql.lit(1).as('one'))
          .whereRef('l.workflow_id', '=', 'workflows.id'),
      )
      .as('has_repository'),
    eb
      .exists(
        eb
          .selectFrom('agent_state_snapshots as s')
          .select(sql.lit(1).as('one'))
          .whereRef('s.workflow_id', '=', 'workflows.id'),
      )
      .as('has_snapshot'),
  ];
}

export type WorkflowForDispatch = Pick<
  Workflow,
  'id' | 'project_id' | 'requirement' | 'template' | 'last_update_seq' | 'app_key' | 'trace_id' | 'trace_span_id'
> &
  /** read with the row when it can be: a run without a budget needs no budget read */
  Partial<Pick<Workflow, 'budget'>> &
  DispatchHints;

export const DISPATCH_SELECT = {
  id: true,
  project_id: true,
  requirement: true,
  template: true,
  last_update_seq: true,
  app_key: true,
  /** the labels a worker must have to take it (dispatch/routing.ts) */
  requires: true,
  /** the run's trace (decision 0052), sent as the dispatch's `traceparent` */
  trace_id: true,
  trace_span_id: true,
  budget: true,
} as const;

/**
 * The `dispatch` message for a workflow. Resume, feedback and answer carry the latest snapshot; without
 * one there is nothing to resume, so the workflow starts afresh. `last_seq` is the highest seq stored
 * (or promised to a title worker), so the worker numbers its updates after it.
 */
export async function buildDispatch(
  {
    db,
    reader,
    provider,
    appLinks,
    secrets,
  }: {
    db: Db;
    /** the project's MCP servers are read on the driver */
    reader: SqlReader;
    provider: DbProvider;
    appLinks: AppLinks;
    secrets?: Pick<RunSecrets, 'forRun'> & Partial<Pick<RunSecrets, 'repositoryFor'>>;
  },
  workflow: WorkflowForDispatch,
  action: DispatchAction,
  options: { message?: string; reservedSeq?: number } = {},
): Promise<DispatchMessage> {
  const lastSeq = Math.max(workflow.last_update_seq, options.reservedSeq ?? 0);
  // Independent reads, side by side: a dispatch waits for the slowest, not for their sum.
  const [appKey, budget, mcpServers, runSecrets, repository] = await Promise.all([
    ensureAppKey(db, workflow),
    budgetPart(db, workflow, action),
    mcpServersPart(reader, provider, workflow, action),
    secretsPart(secrets, workflow, action),
    repositoryPart(secrets, workflow, action),
  ]);
  const base = {
    type: 'dispatch' as const,
    workflow_id: workflow.id,
    project_id: workflow.project_id,
    requirement: workflow.requirement,
    template: workflow.template,
    last_seq: lastSeq,
    app_url: appLinks.linkOf({ app_key: appKey }),
    ...budget,
    ...mcpServers,
    ...runSecrets,
    ...repository,
    ...traceparentPart(workflow),
  };
  if (withoutSnapshot(action)) return { ...base, action };
  // A pause goes to the run the worker holds: its `message` says whether to interrupt the running command.
  if (action === 'pause') return { ...base, action, ...messageOf(options.message || undefined) };
  // A snapshot comes with a worker's update: a run none has stored any for has none (its first dispatch).
  if (workflow.last_update_seq === 0 || knownAbsent(workflow.has_snapshot)) return { ...base, action: 'start' };
  const latest = await db.agentStateSnapshot.findFirst({
    where: { workflow_id: workflow.id },
    orderBy: { seq: 'desc' },
  });
  if (!latest) return { ...base, action: 'start' };
  return {
    ...base,
    action,
    snapshot: snapshotData(latest),
    ...messageOf(options.message),
    ...(await stepHistoryPart(db, workflow.id, latest, action, options.message)),
  };
}

/** A run taken back after a lease loss goes on after its step's earlier tool calls (decision 0063). */
async function stepHistoryPart(
  db: Db,
  workflowId: string,
  latest: AgentStateSnapshot,
  action: DispatchAction,
  message: string | undefined,
): Promise<{ step_history?: StepHistory }> {
  if (action !== 'resume' || !message?.startsWith(RESUMED_AFTER_LEASE_LOSS)) return {};
  const history = await stepHistoryOf(db, workflowId, latest);
  return history ? { step_history: history } : {};
}

/** The run's trace context (decision 0052), on every dispatch of a run that has a trace. */
const traceparentPart = ({ trace_id, trace_span_id }: WorkflowForDispatch): { traceparent?: string } =>
  trace_id && trace_span_id ? { traceparent: traceparentOf({ trace_id, trace_span_id }) } : {};

const withoutSnapshot = (action: DispatchAction): action is 'start' | 'cancel' | 'generate_title' =>
  action === 'start' || action === 'cancel' || action === 'generate_title';

const messageOf = (message: string | undefined) => (message === undefined ? {} : { message });

/** A dispatch the worker runs the agent for: not a cancel, a title job or a pause of the run it holds. */
const runsTheAgent = (action: DispatchAction) =>
  action !== 'cancel' && action !== 'generate_title' && action !== 'pause';

/** The run's secrets, decrypted now, for a dispatch that runs the agent. */
async function secretsPart(
  secrets: Pick<RunSecrets, 'forRun'> | undefined,
  workflow: WorkflowForDispatch,
  action: DispatchAction,
): Promise<{ secrets?: RunSecret[] }> {
  if (!secrets || !runsTheAgent(action) || knownAbsent(workflow.has_secrets)) return {};
  const values = await secrets.forRun({
    id: workflow.id,
    project_id: workflow.project_id,
    template: workflow.template,
  });
  return values.length ? { secrets: values } : {};
}

/** The run's repository with its credential (decision 0046), for a dispatch that runs the agent. */
async function repositoryPart(
  secrets: Partial<Pick<RunSecrets, 'repositoryFor'>> | undefined,
  workflow: WorkflowForDispatch,
  action: DispatchAction,
): Promise<{ repository?: DispatchRepository }> {
  if (!secrets?.repositoryFor || !runsTheAgent(action) || knownAbsent(workflow.has_repository)) return {};
  const repository = await secrets.repositoryFor(workflow);
  return repository ? { repository } : {};
}

/** The run's budget and spend so far, for a dispatch that runs it. */
async function budgetPart(
  db: Db,
  workflow: WorkflowForDispatch,
  action: DispatchAction,
): Promise<{ budget?: DispatchMessage['budget'] }> {
  if (action === 'cancel' || action === 'generate_title' || workflow.budget === null) return {};
  const budget = await dispatchBudgetOf(db, workflow.id);
  return budget ? { budget } : {};
}

/** The project's enabled MCP servers, for a dispatch that runs the agent (references to secrets kept). */
async function mcpServersPart(
  reader: SqlReader,
  provider: DbProvider,
  workflow: WorkflowForDispatch,
  action: DispatchAction,
): Promise<{ mcp_servers?: DispatchMessage['mcp_servers'] }> {
  if (!runsTheAgent(action) || knownAbsent(workflow.has_mcp_servers)) return {};
  const rows = await reader.rows(enabledMcpServers[provider].bind({ projectId: workflow.project_id }));
  return rows.length ? { mcp_servers: rows.map((row) => mcpServerConfigOf(mcpServerRow[provider](row))) } : {};
}

const enabledMcpServersOf = (provider: DbProvider): Prepared<{ projectId: string }> =>
  prepare(provider, (arg) =>
    queryBuilder(provider)
      .selectFrom('mcp_servers')
      .selectAll()
      .where('project_id', '=', arg('projectId'))
      .where('enabled', '=', true)
      .orderBy('name'),
  );
const enabledMcpServers = { postgresql: enabledMcpServersOf('postgresql'), sqlite: enabledMcpServersOf('sqlite') };
const mcpServerRow = {
  postgresql: rowDecoder('postgresql', 'mcp_servers') as (row: unknown) => McpServerRow,
  sqlite: rowDecoder('sqlite', 'mcp_servers') as (row: unknown) => McpServerRow,
};

/**
 * The worker for a queued workflow: among the connected workers with room whose labels include the
 * required ones (`requires`, stored form) and that may take a run (a `--once` worker takes one), the
 * requested one (by id or name), else the one with the most free capacity relative to its size; null
 * when none fits.
 */
export function pickWorker(
  sessions: readonly WorkerSession[],
  load: ReadonlyMap<string, number>,
  requested: string | null,
  requires = '[]',
): WorkerSession | null {
  const required = decodeRequires(requires);
  const free = sessions.filter(
    (s) => (load.get(s.workerId) ?? 0) < s.capacity && s.takesRuns() && satisfies(s.labels, required),
  );
  if (requested) return free.find((s) => s.workerId === requested || s.name === requested) ?? null;
  let best: WorkerSession | null = null;
  let bestShare = Infinity;
  for (const session of free) {
    const share = (load.get(session.workerId) ?? 0) / session.capacity;
    if (share < bestShare) {
      best = session;
      bestShare = share;
    }
  }
  return best;
}
