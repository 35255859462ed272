import {
  encodeParameter,
  isAnyOf,
  LLM_CALL_LOG_COLUMNS,
  prepare,
  queryBuilder,
  selectRows,
  type DbProvider,
  type QueryBuilder,
  type Row,
  type TableName,
} from '@svc/db';
import type { RawClient, TableRows } from '../events';
import type { PlannedRows, StepTimeRow } from './plan';

/** A table and the columns its planned rows give (checked against the schema's table types). */
const rowsOf = <T extends TableName>(table: T, columns: TableRows<T>['columns']) => ({ table, columns });

/** The tables a batch of worker updates fills besides `events`. */
const ROW_TABLES = {
  workerUpdates: rowsOf('worker_updates', ['workflow_id', 'seq', 'kind', 'worker_id', 'created_at']),
  snapshots: rowsOf('agent_state_snapshots', [
    'id',
    'workflow_id',
    'seq',
    'phase',
    'current_step',
    'steps',
    'memo',
    'pending_question',
    'created_at',
  ]),
  logEntries: rowsOf('execution_log_entries', [
    'id',
    'workflow_id',
    'seq',
    'step_index',
    'tool_name',
    'tool_input',
    'output',
    'is_error',
    'revision',
    'duration_ms',
    'output_object',
    'output_total_bytes',
    'output_line_times',
    'created_at',
  ]),
  llmCalls: rowsOf('llm_call_logs', [...LLM_CALL_LOG_COLUMNS]),
  llmCallDetails: rowsOf('llm_call_details', ['call_id', 'messages', 'reply', 'truncated', 'created_at']),
  stepDiffs: rowsOf('step_diffs', [
    'workflow_id',
    'seq',
    'step_index',
    'revision',
    'files',
    'patch',
    'truncated',
    'created_at',
  ]),
  stepTimes: {
    ...rowsOf('plan_step_times', ['workflow_id', 'step_index', 'started_at', 'finished_at']),
    upsert: { key: ['workflow_id', 'step_index'], keepWhenNull: ['started_at'] },
  },
} satisfies Record<keyof PlannedRows, { table: TableName; upsert?: TableRows['upsert'] }>;

/** A batch's rows as the event store's extra tables. */
export function batchTables(provider: DbProvider, rows: PlannedRows): TableRows[] {
  return (Object.keys(ROW_TABLES) as (keyof PlannedRows)[]).map((key) => ({
    ...(ROW_TABLES[key] as TableRows),
    rows: key === 'stepTimes' ? rows.stepTimes.map((row) => encodedTimes(provider, row)) : rows[key],
  }));
}

/** The JSON rows carry timestamps as the database's text (the event store stamps only `created_at`). */
const encodedTimes = (provider: DbProvider, row: StepTimeRow) => ({
  ...row,
  started_at: row.started_at && encodeParameter(provider, row.started_at),
  finished_at: row.finished_at && encodeParameter(provider, row.finished_at),
});

/** The reads of the worker-update hot path (the writes go through the event store). */
export class IngestSql {
  private readonly builder: QueryBuilder;
  private readonly workflowRows: ReturnType<typeof workflowRows>;

  constructor(private readonly provider: DbProvider) {
    this.builder = queryBuilder(provider);
    this.workflowRows = workflowRows(provider, this.builder);
  }

  async workflows(db: RawClient, ids: readonly string[]) {
    return selectRows<WorkflowRow>(db, this.provider, this.workflowRows.bind({ ids }));
  }

  /** A setting's raw value, undefined when it is not set. */
  async setting(db: RawClient, key: string): Promise<string | undefined> {
    const query = this.builder.selectFrom('settings').select('value').where('key', '=', key);
    const [row] = await selectRows(db, this.provider, query);
    return row?.value;
  }

  /** Which of these (workflow, seq) pairs are stored already. */
  async storedUpdates(
    db: RawClient,
    seqs: ReadonlyMap<string, number[]>,
  ): Promise<{ workflow_id: string; seq: number }[]> {
    const query = this.builder
      .selectFrom('worker_updates')
      .select(['workflow_id', 'seq'])
      .where((eb) => eb.or([...seqs].map(([id, list]) => eb.and([eb('workflow_id', '=', id), eb('seq', 'in', list)]))));
    return selectRows(db, this.provider, query);
  }
}

/** The columns of its workflows' rows the ingest needs (see IngestWorkflows). */
const WORKFLOW_COLUMNS = [
  'id',
  'project_id',
  'assigned_worker_id',
  'status',
  'last_update_seq',
  'plan_revision',
  'title_worker_id',
  'title_first_seq',
  'title_last_seq',
  'plan_revising',
] as const;
type WorkflowRow = Pick<Row<'workflows'>, (typeof WORKFLOW_COLUMNS)[number]>;

/** Those columns of the workflows in a list of ids. */
function workflowRows(provider: DbProvider, builder: QueryBuilder) {
  return prepare<{ ids: readonly string[] }>(provider, (arg) =>
    builder
      .selectFrom('workflows')
      .select(WORKFLOW_COLUMNS)
      .where((eb) => isAnyOf(provider, eb.ref('id'), arg('ids'))),
  );
}
