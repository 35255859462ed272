import type { AgentStateSnapshot, DbProvider, Project, SqlReader, User, Workflow } from '@svc/db';
import type { Role } from '../policies/rules';
import type { CallRowWithDetail, LogRowJson } from '../wire/logs';
import type { SnapshotRow, StepEvent } from '../wire/workflow';
import type { StepStatus } from '@svc/protocol';
import type { AppLinks } from '../apps/app-link';

/**
 * The hot reads of the REST API (issue 11) in plain SQL on the driver (`SqlReader`), beside Prisma:
 * the caller, the workflow and the caller's membership in ONE statement, then one statement for what
 * the route shows. Rows are turned into the Prisma row types, so the wire/ presenters serve both paths.
 * Membership and deletion are read from the database on every request, never cached: a removed member
 * or a deleted project is refused on the very next request, on every replica.
 */
export class HotReads {
  private readonly json: (value: unknown) => unknown;

  constructor(
    private readonly reader: SqlReader,
    private readonly provider: DbProvider,
    /** the presenters of both paths give each workflow its app link from here */
    readonly appLinks: AppLinks,
  ) {
    // PostgreSQL's driver parses jsonb; SQLite stores JSON as text.
    this.json = provider === 'sqlite' ? (value) => JSON.parse(value as string) : (value) => value;
  }

  /**
   * The user, and the workflow when it and its project are live, with the user's role in that project.
   * Null when there is no such user.
   */
  async userAndWorkflow(
    userId: string,
    workflowId: string,
  ): Promise<{ user: User; workflow: Workflow | null; role: Role | null } | null> {
    const [row] = await this.reader.query<Raw>('hot_user_workflow', USER_AND_WORKFLOW, [userId, workflowId]);
    if (!row) return null;
    return {
      user: toUser(row, 'u_'),
      workflow: row.id === null ? null : toWorkflow(row),
      role: (row.role as Role | null) ?? null,
    };
  }

  async latestSnapshot(workflowId: string): Promise<AgentStateSnapshot | null> {
    const [row] = await this.reader.query<Raw>('hot_latest_snapshot', LATEST_SNAPSHOT, [workflowId]);
    if (!row) return null;
    return {
      id: row.id as string,
      workflow_id: row.workflow_id as string,
      seq: Number(row.seq),
      phase: row.phase as string,
      current_step: Number(row.current_step),
      steps: this.json(row.steps) as AgentStateSnapshot['steps'],
      memo: this.json(row.memo) as AgentStateSnapshot['memo'],
      pending_question: row.pending_question as string | null,
      created_at: date(row.created_at),
    };
  }

  // ---- workflows: worker names, plan progress of a page, the plan's step events ----

  /** The names of these workers (ids that are gone are absent). */
  async workerNames(ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.reader.query<Raw>('hot_worker_names', this.inIds(WORKER_NAMES), [this.idList(ids)]);
    return new Map(rows.map((row) => [row.id as string, row.name as string]));
  }

  /** The latest snapshot of each of these workflows, in one statement (a list page's progress). */
  async latestSnapshots(workflowIds: readonly string[]): Promise<Map<string, SnapshotRow>> {
    if (workflowIds.length === 0) return new Map();
    const rows = await this.reader.query<Raw>('hot_latest_snapshots', this.inIds(LATEST_SNAPSHOTS), [
      this.idList(workflowIds),
    ]);
    return new Map(rows.map((row) => [row.workflow_id as string, this.toSnapshotRow(row)]));
  }

  /** The workflow's plan_step_status events in seq order (the plan's step times). */
  async stepEvents(workflowId: string): Promise<StepEvent[]> {
    const rows = await this.reader.query<Raw>('hot_step_events', STEP_EVENTS, [workflowId]);
    return rows.map((row) => {
      const data = this.json(row.data) as { index: number; status: StepStatus };
      return { seq: Number(row.seq), index: data.index, status: data.status, at: date(row.created_at) };
    });
  }

  /**
   * Which of these workflows are having their plan revised: their latest feedback came after their
   * latest snapshot (the worker has not sent the revised plan yet). One statement for them all.
   */
  async revising(workflowIds: readonly string[]): Promise<Set<string>> {
    if (workflowIds.length === 0) return new Set();
    const field = (column: string, name: string) =>
      this.provider === 'sqlite' ? `json_extract(${column}, '$.${name}')` : `${column}->>'${name}'`;
    const feedback = (alias: string) =>
      `${alias}.type = 'workflow_action' AND ${field(`${alias}.data`, 'action')} = 'feedback'`;
    const statement = `
      SELECT f.workflow_id FROM events f
      WHERE f.workflow_id IN_IDS AND ${feedback('f')}
        AND f.seq = (SELECT MAX(l.seq) FROM events l WHERE l.workflow_id = f.workflow_id AND ${feedback('l')})
        AND NOT EXISTS (SELECT 1 FROM events u WHERE u.workflow_id = f.workflow_id AND u.seq > f.seq
          AND u.type = 'workflow_update' AND ${field('u.data', 'kind')} = 'snapshot')`;
    const rows = await this.reader.query<Raw>('hot_revising', this.inIds(statement), [this.idList(workflowIds)]);
    return new Set(rows.map((row) => row.workflow_id as string));
  }

  /**
   * The ids of a project's live workflows whose title or requirement contains `text`, ignoring case
   * (PostgreSQL: all of Unicode; SQLite: ASCII). A substring test, not LIKE: `%` and `_` are just text.
   */
  async workflowIdsMatching(projectId: string, text: string): Promise<string[]> {
    const position = this.provider === 'sqlite' ? 'instr' : 'strpos';
    const rows = await this.reader.query<Raw>(
      'hot_workflow_search',
      `SELECT id FROM workflows WHERE project_id = $1 AND deleted_at IS NULL
        AND (${position}(lower(title), lower($2)) > 0 OR ${position}(lower(requirement), lower($2)) > 0)`,
      [projectId, text],
    );
    return rows.map((row) => row.id as string);
  }

  /** An id list as one parameter: a text array on PostgreSQL, a JSON array on SQLite. */
  private idList(ids: readonly string[]): unknown {
    return this.provider === 'sqlite' ? JSON.stringify(ids) : [...ids];
  }

  private inIds(statement: string): string {
    return statement.replace(
      'IN_IDS',
      this.provider === 'sqlite' ? 'IN (SELECT value FROM json_each($1))' : '= ANY($1::text[])',
    );
  }

  private toSnapshotRow(row: Raw): SnapshotRow {
    return {
      phase: row.phase as string,
      current_step: Number(row.current_step),
      steps: this.json(row.steps) as AgentStateSnapshot['steps'],
      memo: this.json(row.memo) as AgentStateSnapshot['memo'],
      pending_question: row.pending_question as string | null,
    };
  }

  /** Log entries after `afterSeq` (all when undefined) in seq order, at most `take`; tool input as JSON text. */
  async logPage(workflowId: string, afterSeq: number | undefined, take: number): Promise<LogRowJson[]> {
    const rows = await this.page('execution_log_entries', LOG_COLUMNS, workflowId, afterSeq, take);
    return rows.map((row) => ({
      id: row.id as string,
      workflow_id: row.workflow_id as string,
      seq: Number(row.seq),
      step_index: nullableNumber(row.step_index),
      tool_name: row.tool_name as string,
      tool_input_json: row.tool_input_json as string,
      output: row.output as string,
      is_error: row.is_error === true || row.is_error === 1,
      revision: Number(row.revision),
      duration_ms: nullableNumber(row.duration_ms),
      created_at: date(row.created_at),
    }));
  }

  async llmCallPage(workflowId: string, afterSeq: number | undefined, take: number): Promise<CallRowWithDetail[]> {
    const rows = await this.page('llm_call_logs', LLM_CALL_COLUMNS, workflowId, afterSeq, take);
    return rows.map((row) => ({
      id: row.id as string,
      workflow_id: row.workflow_id as string,
      seq: Number(row.seq),
      phase: row.phase as string,
      model: row.model as string,
      prompt_tokens: nullableNumber(row.prompt_tokens),
      completion_tokens: nullableNumber(row.completion_tokens),
      latency_ms: Number(row.latency_ms),
      step_index: nullableNumber(row.step_index),
      attempt: Number(row.attempt),
      error: row.error as string | null,
      finish_reason: row.finish_reason as string | null,
      has_detail: row.has_detail === true || Number(row.has_detail) === 1,
      created_at: date(row.created_at),
    }));
  }

  /**
   * When the oldest stored LLM call detail was made (null when there is none). The retention sweep
   * deletes every detail older than its cutoff, so a sweep that deleted any changes this value.
   */
  async oldestLlmDetail(): Promise<string | null> {
    const [row] = await this.reader.query<Raw>('hot_oldest_llm_detail', OLDEST_LLM_DETAIL, []);
    const oldest = row?.oldest;
    if (oldest === null || oldest === undefined) return null;
    return oldest instanceof Date ? oldest.toISOString() : String(oldest);
  }

  /** SUM skips nulls: the token sums count known values; unknown_usage_calls says how many are missing. */
  async llmCallTotals(workflowId: string) {
    const [row] = await this.reader.query<Raw>('hot_llm_call_totals', LLM_CALL_TOTALS, [workflowId]);
    return {
      calls: Number(row!.calls),
      prompt_tokens: Number(row!.prompt_tokens ?? 0),
      completion_tokens: Number(row!.completion_tokens ?? 0),
      latency_ms: Number(row!.latency_ms ?? 0),
      unknown_usage_calls: Number(row!.unknown_usage_calls ?? 0),
      failed_calls: Number(row!.failed_calls),
    };
  }

  /**
   * The user and the live projects they are a member of, with their role, in creation order (two
   * statements at once: measured cheaper than one joining the user to every row). Null when there is
   * no such user.
   */
  async userAndProjects(userId: string): Promise<{ user: User; projects: ProjectWithRole[] } | null> {
    const [[user], projects] = await Promise.all([
      this.reader.query<Raw>('hot_user', USER_BY_ID, [userId]),
      this.reader.query<Raw>('hot_member_projects', MEMBER_PROJECTS, [userId]),
    ]);
    return user ? { user: toUser(user, ''), projects: projects.map(toProjectWithRole) } : null;
  }

  /** Every live project in creation order, with the user's role where they are a member (administrators). */
  async allProjects(userId: string): Promise<ProjectWithRole[]> {
    return (await this.reader.query<Raw>('hot_all_projects', ALL_PROJECTS, [userId])).map(toProjectWithRole);
  }

  private page(table: string, columns: string, workflowId: string, afterSeq: number | undefined, take: number) {
    return afterSeq === undefined
      ? this.reader.query<Raw>(`hot_${table}_first`, firstPage(table, columns), [workflowId, take])
      : this.reader.query<Raw>(`hot_${table}_after`, pageAfter(table, columns), [workflowId, afterSeq, take]);
  }
}

type Raw = Record<string, unknown>;
export type ProjectWithRole = { project: Project; role: Role | null };

function toProjectWithRole(row: Raw): ProjectWithRole {
  return {
    project: {
      id: row.id as string,
      name: row.name as string,
      description: row.description as string,
      created_by: row.created_by as string,
      deleted_at: nullableDate(row.deleted_at),
      archive_path: row.archive_path as string | null,
      created_at: date(row.created_at),
      updated_at: date(row.updated_at),
    },
    role: (row.role as Role | null) ?? null,
  };
}

const date = (value: unknown): Date => (value instanceof Date ? value : new Date(value as string));
const nullableDate = (value: unknown): Date | null => (value === null ? null : date(value));
const nullableNumber = (value: unknown): number | null => (value === null ? null : Number(value));

const USER_COLUMNS = [
  'id',
  'login',
  'email',
  'name',
  'avatar_url',
  'provider',
  'provider_subject',
  'created_at',
  'updated_at',
];

function toUser(row: Raw, prefix: string): User {
  const at = (column: string) => row[prefix + column];
  return {
    id: at('id') as string,
    login: at('login') as string,
    email: at('email') as string | null,
    name: at('name') as string | null,
    avatar_url: at('avatar_url') as string | null,
    provider: at('provider') as string,
    provider_subject: at('provider_subject') as string,
    created_at: date(at('created_at')),
    updated_at: date(at('updated_at')),
  };
}

function toWorkflow(row: Raw): Workflow {
  return {
    id: row.id as string,
    project_id: row.project_id as string,
    created_by: row.created_by as string,
    requirement: row.requirement as string,
    title: row.title as string,
    title_generated: row.title_generated === true || row.title_generated === 1,
    status: row.status as string,
    question: row.question as string | null,
    error: row.error as string | null,
    requested_worker_id: row.requested_worker_id as string | null,
    assigned_worker_id: row.assigned_worker_id as string | null,
    template: row.template as string | null,
    app_url: row.app_url as string | null,
    last_update_seq: Number(row.last_update_seq),
    last_event_seq: Number(row.last_event_seq),
    steer_action: row.steer_action as string | null,
    steer_message: row.steer_message as string | null,
    title_worker_id: row.title_worker_id as string | null,
    title_first_seq: nullableNumber(row.title_first_seq),
    title_last_seq: nullableNumber(row.title_last_seq),
    number: Number(row.number),
    rerun_of: row.rerun_of as string | null,
    idempotency_key: row.idempotency_key as string | null,
    app_key: row.app_key as string | null,
    plan_revision: Number(row.plan_revision),
    started_at: nullableDate(row.started_at),
    finished_at: nullableDate(row.finished_at),
    deleted_at: nullableDate(row.deleted_at),
    created_at: date(row.created_at),
    updated_at: date(row.updated_at),
  };
}

const USER_BY_ID = `SELECT ${USER_COLUMNS.join(', ')} FROM users WHERE id = $1`;

// The user row always comes back (when it exists); the workflow columns are null unless the workflow
// and its project are live, the role null unless the user is a member of that project.
const USER_AND_WORKFLOW = `
  SELECT ${USER_COLUMNS.map((c) => `u.${c} AS u_${c}`).join(', ')},
    w.id, w.project_id, w.created_by, w.requirement, w.title, w.title_generated, w.status, w.question,
    w.error, w.requested_worker_id, w.assigned_worker_id, w.template, w.app_url, w.last_update_seq,
    w.last_event_seq, w.steer_action, w.steer_message, w.title_worker_id, w.title_first_seq, w.title_last_seq,
    w.number, w.rerun_of, w.idempotency_key, w.app_key, w.plan_revision, w.started_at, w.finished_at,
    w.deleted_at, w.created_at, w.updated_at, m.role
  FROM users u
  LEFT JOIN workflows w ON w.id = $2 AND w.deleted_at IS NULL
    AND EXISTS (SELECT 1 FROM projects p WHERE p.id = w.project_id AND p.deleted_at IS NULL)
  LEFT JOIN project_members m ON m.project_id = w.project_id AND m.user_id = u.id
  WHERE u.id = $1`;

const LATEST_SNAPSHOT = `
  SELECT id, workflow_id, seq, phase, current_step, steps, memo, pending_question, created_at
  FROM agent_state_snapshots WHERE workflow_id = $1 ORDER BY seq DESC LIMIT 1`;

const WORKER_NAMES = 'SELECT id, name FROM workers WHERE id IN_IDS';

// The correlated MAX(seq) walks the (workflow_id, seq) index once per workflow of the page.
const LATEST_SNAPSHOTS = `
  SELECT s.workflow_id, s.phase, s.current_step, s.steps, s.memo, s.pending_question
  FROM agent_state_snapshots s
  WHERE s.workflow_id IN_IDS
    AND s.seq = (SELECT MAX(m.seq) FROM agent_state_snapshots m WHERE m.workflow_id = s.workflow_id)`;

const STEP_EVENTS = `
  SELECT seq, data, created_at FROM events WHERE workflow_id = $1 AND type = 'plan_step_status' ORDER BY seq`;

const LOG_COLUMNS =
  'id, workflow_id, seq, step_index, tool_name, CAST(tool_input AS TEXT) AS tool_input_json, output, is_error, revision, duration_ms, created_at';
const LLM_CALL_COLUMNS =
  'id, workflow_id, seq, phase, model, prompt_tokens, completion_tokens, latency_ms, step_index, attempt, error, finish_reason, created_at, ' +
  'EXISTS (SELECT 1 FROM llm_call_details d WHERE d.call_id = llm_call_logs.id) AS has_detail';
const firstPage = (table: string, columns: string) =>
  `SELECT ${columns} FROM ${table} WHERE workflow_id = $1 ORDER BY seq LIMIT $2`;
const pageAfter = (table: string, columns: string) =>
  `SELECT ${columns} FROM ${table} WHERE workflow_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`;

// MIN over the created_at index: one index probe.
const OLDEST_LLM_DETAIL = 'SELECT MIN(created_at) AS oldest FROM llm_call_details';

const LLM_CALL_TOTALS = `
  SELECT COUNT(*) AS calls, SUM(prompt_tokens) AS prompt_tokens, SUM(completion_tokens) AS completion_tokens,
    SUM(latency_ms) AS latency_ms,
    SUM(CASE WHEN prompt_tokens IS NULL OR completion_tokens IS NULL THEN 1 ELSE 0 END) AS unknown_usage_calls,
    COUNT(error) AS failed_calls
  FROM llm_call_logs WHERE workflow_id = $1`;

const PROJECT_COLUMNS =
  'p.id, p.name, p.description, p.created_by, p.deleted_at, p.archive_path, p.created_at, p.updated_at, m.role';
const ALL_PROJECTS = `
  SELECT ${PROJECT_COLUMNS} FROM projects p
  LEFT JOIN project_members m ON m.project_id = p.id AND m.user_id = $1
  WHERE p.deleted_at IS NULL ORDER BY p.created_at, p.id`;
const MEMBER_PROJECTS = `
  SELECT ${PROJECT_COLUMNS} FROM projects p
  JOIN project_members m ON m.project_id = p.id AND m.user_id = $1
  WHERE p.deleted_at IS NULL ORDER BY p.created_at, p.id`;
