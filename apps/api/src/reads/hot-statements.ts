import {
  isAnyOf,
  LLM_CALL_LOG_COLUMNS,
  prepare,
  queryBuilder,
  sql,
  type DbProvider,
  type JoinBuilder,
  type SelectQueryBuilder,
  type Project,
  type Tables,
  type User,
} from '@svc/db';

/** The user columns the hot reads return with a workflow (as `u_<column>`, see HotReads.userAndWorkflow). */
export const USER_COLUMNS = [
  'id',
  'login',
  'email',
  'name',
  'avatar_url',
  'provider',
  'provider_subject',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof User)[];

/** Every project column (checked below): the project of a `userAndProject` row is copied out of it by these. */
export const PROJECT_COLUMNS = [
  'id',
  'name',
  'description',
  'created_by',
  'deleted_at',
  'archive_path',
  'default_budget',
  'max_running',
  'last_workflow_number',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof Project)[];
// A column added to the projects table fails to compile here until it is added above.
const everyProjectColumn: [Exclude<keyof Project, (typeof PROJECT_COLUMNS)[number]>] extends [never] ? true : never =
  true;
void everyProjectColumn;

export type HotStatements = ReturnType<typeof hotStatements>;
type PageArgs = { workflowId: string; afterSeq: number; take: number };

/**
 * The statements of the hot reads, each built and compiled once (`prepare`). Membership and liveness
 * are part of the statements, never cached.
 */
export function hotStatements(provider: DbProvider) {
  const q = queryBuilder(provider);
  const one = <A extends Record<string, unknown>>(build: Parameters<typeof prepare<A>>[1]) =>
    prepare<A>(provider, build);
  const logColumns = q
    .selectFrom('execution_log_entries')
    .select([
      'id',
      'workflow_id',
      'seq',
      'step_index',
      'tool_name',
      sql<string>`CAST(tool_input AS TEXT)`.as('tool_input_json'),
      'output',
      'is_error',
      'revision',
      'duration_ms',
      'output_object',
      'output_total_bytes',
      'output_line_times',
      'created_at',
    ]);
  const llmCallColumns = q
    .selectFrom('llm_call_logs')
    .select(LLM_CALL_LOG_COLUMNS)
    .select((eb) =>
      eb
        .exists(
          eb.selectFrom('llm_call_details as d').select('d.call_id').whereRef('d.call_id', '=', 'llm_call_logs.id'),
        )
        .as('has_detail'),
    );
  // A page of a workflow's rows in seq order: from the first, or after a seq; at most `take`.
  const firstPage = <Q extends SelectQueryBuilder<Tables, 'execution_log_entries' | 'llm_call_logs', object>>(
    query: Q,
  ) => one<PageArgs>((arg) => query.where('workflow_id', '=', arg('workflowId')).orderBy('seq').limit(arg('take')));
  const pageAfter = <Q extends SelectQueryBuilder<Tables, 'execution_log_entries' | 'llm_call_logs', object>>(
    query: Q,
  ) =>
    one<PageArgs>((arg) =>
      query
        .where('workflow_id', '=', arg('workflowId'))
        .where('seq', '>', arg('afterSeq'))
        .orderBy('seq')
        .limit(arg('take')),
    );
  // Live projects in creation order with the user's role: where they are a member, or all of them.
  const projects = (members: 'only' | 'all') =>
    one<{ userId: string }>((arg) => {
      const from = q.selectFrom('projects as p');
      const membership = (
        on: JoinBuilder<Tables & { p: Tables['projects']; m: Tables['project_members'] }, 'p' | 'm'>,
      ) => on.onRef('m.project_id', '=', 'p.id').on('m.user_id', '=', arg('userId'));
      const joined =
        members === 'only'
          ? from.innerJoin('project_members as m', membership)
          : from.leftJoin('project_members as m', membership);
      return joined
        .selectAll('p')
        .select('m.role')
        .where('p.deleted_at', 'is', null)
        .orderBy('p.created_at')
        .orderBy('p.id');
    });
  return {
    // The user row always comes back (when it exists); the workflow columns are null unless the workflow
    // and its project are live, the role null unless the user is a member of that project.
    userAndWorkflow: one<{ userId: string; workflowId: string }>((arg) =>
      q
        .selectFrom('users as u')
        .leftJoin('workflows as w', (join) =>
          join
            .on('w.id', '=', arg('workflowId'))
            .on('w.deleted_at', 'is', null)
            .on((eb) =>
              eb.exists(
                eb
                  .selectFrom('projects as p')
                  .select(sql.lit(1).as('live'))
                  .whereRef('p.id', '=', 'w.project_id')
                  .where('p.deleted_at', 'is', null),
              ),
            ),
        )
        .leftJoin('project_members as m', (join) =>
          join.onRef('m.project_id', '=', 'w.project_id').onRef('m.user_id', '=', 'u.id'),
        )
        .selectAll('w')
        .select(USER_COLUMNS.map((column) => sql.ref(`u.${column}`).as(`u_${column}`)))
        .select('m.role')
        .where('u.id', '=', arg('userId')),
    ),
    // As userAndWorkflow, for a project: its columns null unless it is live, the role unless a member.
    userAndProject: one<{ userId: string; projectId: string }>((arg) =>
      q
        .selectFrom('users as u')
        .leftJoin('projects as p', (join) => join.on('p.id', '=', arg('projectId')).on('p.deleted_at', 'is', null))
        .leftJoin('project_members as m', (join) =>
          join.onRef('m.project_id', '=', 'p.id').onRef('m.user_id', '=', 'u.id'),
        )
        .select(PROJECT_COLUMNS.map((column) => sql.ref(`p.${column}`).as(column)))
        .select(USER_COLUMNS.map((column) => sql.ref(`u.${column}`).as(`u_${column}`)))
        .select('m.role')
        .where('u.id', '=', arg('userId')),
    ),
    latestSnapshot: one<{ workflowId: string }>((arg) =>
      q
        .selectFrom('agent_state_snapshots')
        .selectAll()
        .where('workflow_id', '=', arg('workflowId'))
        .orderBy('seq', 'desc')
        .limit(sql.lit(1)),
    ),
    workerNames: one<{ ids: readonly string[] }>((arg) =>
      q
        .selectFrom('workers')
        .select(['id', 'name'])
        .where((eb) => isAnyOf(provider, eb.ref('id'), arg('ids'))),
    ),
    // The correlated MAX(seq) walks the (workflow_id, seq) index once per workflow of the page.
    latestSnapshots: one<{ workflowIds: readonly string[] }>((arg) =>
      q
        .selectFrom('agent_state_snapshots as s')
        .select(['s.workflow_id', 's.phase', 's.current_step', 's.steps', 's.memo', 's.pending_question'])
        .where((eb) => isAnyOf(provider, eb.ref('s.workflow_id'), arg('workflowIds')))
        .where('s.seq', '=', (eb) =>
          eb
            .selectFrom('agent_state_snapshots as m')
            .select((m) => m.fn.max('m.seq').as('seq'))
            .whereRef('m.workflow_id', '=', 's.workflow_id'),
        ),
    ),
    // The primary key (workflow_id, step_index): as many rows as the plan has steps, whatever the log holds.
    stepTimes: one<{ workflowId: string }>((arg) =>
      q
        .selectFrom('plan_step_times')
        .select(['step_index', 'started_at', 'finished_at'])
        .where('workflow_id', '=', arg('workflowId')),
    ),
    logFirst: firstPage(logColumns),
    logAfter: pageAfter(logColumns),
    llmCallsFirst: firstPage(llmCallColumns),
    llmCallsAfter: pageAfter(llmCallColumns),
    // MIN over the created_at index: one index probe.
    oldestLlmDetail: one<Record<string, never>>(() =>
      q.selectFrom('llm_call_details').select((eb) => eb.fn.min('created_at').as('oldest')),
    ),
    llmCallTotals: one<{ workflowId: string }>((arg) =>
      q
        .selectFrom('llm_call_logs')
        .select((eb) => [
          eb.fn.countAll().as('calls'),
          eb.fn.sum('prompt_tokens').as('prompt_tokens'),
          eb.fn.sum('completion_tokens').as('completion_tokens'),
          eb.fn.sum('latency_ms').as('latency_ms'),
          eb.fn
            .sum(
              eb
                .case()
                .when(eb.or([eb('prompt_tokens', 'is', null), eb('completion_tokens', 'is', null)]))
                .then(1)
                .else(0)
                .end(),
            )
            .as('unknown_usage_calls'),
          eb.fn.count('error').as('failed_calls'),
        ])
        .where('workflow_id', '=', arg('workflowId')),
    ),
    user: one<{ userId: string }>((arg) => q.selectFrom('users').selectAll().where('id', '=', arg('userId'))),
    memberProjects: projects('only'),
    allProjects: projects('all'),
  };
}
