import {
  rowDecoder,
  type AgentStateSnapshot,
  type DbProvider,
  type Project,
  type SqlReader,
  type Statement,
  type User,
  type Workflow,
} from '@svc/db';
import { WorkflowPages } from './workflow-page';
import { RunAuthors } from './run-authors';
import { hotStatements, PROJECT_COLUMNS, USER_COLUMNS, type HotStatements } from './hot-statements';
import type { Role } from '../policies/rules';
import type { CallRowWithDetail, LogRowJson, ToolInputYaml } from '../wire/logs';
import type { SnapshotRow, StepTimes } from '../wire/workflow';
import type { AppLinks } from '../apps/app-link';

/**
 * The hot reads of the REST API (issue 11), built with the query builder and run on the driver
 * (`SqlReader`) beside Prisma: the caller, the workflow and the caller's membership in ONE statement,
 * then one statement for what the route shows. Rows decode to the schema's row types (`rowDecoder`),
 * the same as Prisma's, so the wire/ presenters serve both paths. Membership and deletion are read
 * from the database on every request, never cached: a removed member or a deleted project is refused
 * on the very next request, on every replica.
 */
export class HotReads {
  private readonly statements: HotStatements;
  private readonly decode: ReturnType<typeof decoders>;
  /** the workflow list's keyset pages and search */
  readonly workflowPages: WorkflowPages;
  /** who started each run of a list page */
  readonly runAuthors: RunAuthors;

  constructor(
    private readonly reader: SqlReader,
    provider: DbProvider,
    /** the presenters of both paths give each workflow its app link from here */
    readonly appLinks: AppLinks,
    /** the log pages' tool inputs as YAML, each text converted once */
    readonly toolInputYaml: ToolInputYaml,
  ) {
    this.statements = hotStatements(provider);
    this.decode = decoders(provider);
    this.workflowPages = new WorkflowPages(reader, provider);
    this.runAuthors = new RunAuthors(reader, provider);
  }

  /**
   * The user, and the workflow when it and its project are live, with the user's role in that project.
   * Null when there is no such user.
   */
  async userAndWorkflow(
    userId: string,
    workflowId: string,
  ): Promise<{ user: User; workflow: Workflow | null; role: Role | null } | null> {
    const raw = await this.reader.row(this.statements.userAndWorkflow.bind({ userId, workflowId }));
    if (!raw) return null;
    const row = this.decode.userAndWorkflow<Record<string, unknown>>(raw);
    return {
      user: userOfJoin(row),
      // The row itself, not a copy (this runs on every hot read): its extra `u_` and `role` columns are
      // never looked at, every reader of a Workflow picks its fields (the wire/ presenters).
      workflow: row.id === null ? null : (row as unknown as Workflow),
      role: (row.role as Role | null) ?? null,
    };
  }

  /** The user, and the project when it is live, with the user's role in it. Null when there is no such user. */
  async userAndProject(
    userId: string,
    projectId: string,
  ): Promise<{ user: User; project: Project | null; role: Role | null } | null> {
    const raw = await this.reader.row(this.statements.userAndProject.bind({ userId, projectId }));
    if (!raw) return null;
    const row = this.decode.userAndProject<Record<string, unknown>>(raw);
    const user = userOfJoin(row);
    const role = (row.role as Role | null) ?? null;
    return { user, project: row.id === null ? null : columnsOf<Project>(row, PROJECT_PAIRS), role };
  }

  async latestSnapshot(workflowId: string): Promise<AgentStateSnapshot | null> {
    const row = await this.reader.row(this.statements.latestSnapshot.bind({ workflowId }));
    return row ? this.decode.snapshot<AgentStateSnapshot>(row) : null;
  }

  // ---- workflows: worker names, plan progress of a page, the plan's step events ----

  /** The names of these workers (ids that are gone are absent). */
  async workerNames(ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = (await this.reader.rows(this.statements.workerNames.bind({ ids }))) as { id: string; name: string }[];
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  /** The latest snapshot of each of these workflows, in one statement (a list page's progress). */
  async latestSnapshots(workflowIds: readonly string[]): Promise<Map<string, SnapshotRow>> {
    if (workflowIds.length === 0) return new Map();
    const rows = (await this.reader.rows(this.statements.latestSnapshots.bind({ workflowIds }))).map((raw) =>
      this.decode.snapshot<SnapshotRow & { workflow_id: string }>(raw),
    );
    return new Map(rows.map(({ workflow_id, ...row }) => [workflow_id, row]));
  }

  /** The workflow's kept step times (table plan_step_times), one row per step that ran or finished. */
  async stepTimes(workflowId: string): Promise<StepTimes[]> {
    const rows = await this.reader.rows(this.statements.stepTimes.bind({ workflowId }));
    return rows.map((raw) => this.decode.stepTime<StepTimes>(raw));
  }

  /** Log entries after `afterSeq` (all when undefined) in seq order, at most `take`; tool input as JSON text. */
  async logPage(workflowId: string, afterSeq: number | undefined, take: number): Promise<LogRowJson[]> {
    const { logFirst, logAfter } = this.statements;
    const statement = afterSeq === undefined ? logFirst : logAfter;
    const rows = await this.reader.rows(statement.bind({ workflowId, afterSeq: afterSeq ?? 0, take }));
    return rows.map((raw) => this.decode.logEntry<LogRowJson>(raw));
  }

  async llmCallPage(workflowId: string, afterSeq: number | undefined, take: number): Promise<CallRowWithDetail[]> {
    const { llmCallsFirst, llmCallsAfter } = this.statements;
    const statement = afterSeq === undefined ? llmCallsFirst : llmCallsAfter;
    const rows = await this.reader.rows(statement.bind({ workflowId, afterSeq: afterSeq ?? 0, take }));
    return rows.map((raw) => this.decode.llmCall<CallRowWithDetail>(raw));
  }

  /**
   * When the oldest stored LLM call detail was made (null when there is none). The retention sweep
   * deletes every detail older than its cutoff, so a sweep that deleted any changes this value.
   */
  async oldestLlmDetail(): Promise<string | null> {
    const row = (await this.reader.row(this.statements.oldestLlmDetail.bind({}))) as { oldest: unknown } | undefined;
    const oldest = row?.oldest;
    if (oldest === null || oldest === undefined) return null;
    return oldest instanceof Date ? oldest.toISOString() : String(oldest);
  }

  /** SUM skips nulls: the token sums count known values; unknown_usage_calls says how many are missing. */
  async llmCallTotals(workflowId: string) {
    // COUNT and SUM come back as text from PostgreSQL (bigint), as numbers from SQLite; SUM of none is null.
    const row = (await this.reader.row(this.statements.llmCallTotals.bind({ workflowId }))) as Record<string, unknown>;
    return {
      calls: Number(row.calls),
      prompt_tokens: Number(row.prompt_tokens ?? 0),
      completion_tokens: Number(row.completion_tokens ?? 0),
      latency_ms: Number(row.latency_ms ?? 0),
      unknown_usage_calls: Number(row.unknown_usage_calls ?? 0),
      failed_calls: Number(row.failed_calls),
    };
  }

  /**
   * The user and the live projects they are a member of, with their role, in creation order (two
   * statements at once: measured cheaper than one joining the user to every row). Null when there is
   * no such user.
   */
  async userAndProjects(userId: string): Promise<{ user: User; projects: ProjectWithRole[] } | null> {
    const [user, projects] = await Promise.all([
      this.reader.row(this.statements.user.bind({ userId })),
      this.projects(this.statements.memberProjects.bind({ userId })),
    ]);
    return user ? { user: this.decode.user<User>(user), projects } : null;
  }

  /** Every live project in creation order, with the user's role where they are a member (administrators). */
  async allProjects(userId: string): Promise<ProjectWithRole[]> {
    return this.projects(this.statements.allProjects.bind({ userId }));
  }

  private async projects(statement: Statement): Promise<ProjectWithRole[]> {
    return (await this.reader.rows(statement)).map((raw) => {
      const { role, ...project } = this.decode.project<Project & { role: string | null }>(raw);
      return { project, role: (role as Role | null) ?? null };
    });
  }
}

export type ProjectWithRole = { project: Project; role: Role | null };

/** The row decoders of the hot reads (see rowDecoder). */
function decoders(provider: DbProvider) {
  const userKinds = Object.fromEntries(
    USER_COLUMNS.filter((c) => c.endsWith('_at')).map((column) => [`u_${column}`, 'date' as const]),
  );
  return {
    userAndWorkflow: rowDecoder(provider, 'workflows', userKinds),
    userAndProject: rowDecoder(provider, 'projects', userKinds),
    user: rowDecoder(provider, 'users'),
    snapshot: rowDecoder(provider, 'agent_state_snapshots'),
    stepTime: rowDecoder(provider, 'plan_step_times'),
    logEntry: rowDecoder(provider, 'execution_log_entries'),
    llmCall: rowDecoder(provider, 'llm_call_logs', { has_detail: 'boolean' }),
    project: rowDecoder(provider, 'projects'),
  };
}

/** [column, the joined row's name for it] */
type ColumnPairs = readonly (readonly [string, string])[];
const PREFIXED_USER_COLUMNS: ColumnPairs = USER_COLUMNS.map((column) => [column, `u_${column}`] as const);
const PROJECT_PAIRS: ColumnPairs = PROJECT_COLUMNS.map((column) => [column, column] as const);

/** One table's row out of a joined row, built with the same keys every time (fast to make and read). */
function columnsOf<T>(row: Record<string, unknown>, pairs: ColumnPairs): T {
  const picked: Record<string, unknown> = {};
  for (const [column, joined] of pairs) picked[column] = row[joined];
  return picked as T;
}

/** The user of a joined row (its `u_` columns). */
const userOfJoin = (row: Record<string, unknown>): User => columnsOf<User>(row, PREFIXED_USER_COLUMNS);
