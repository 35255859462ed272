import {
  columnTypes,
  encodeParameter,
  isAnyOf,
  prepare,
  jsonRecords,
  jsonText,
  queryBuilder,
  rowDecoder,
  selectRows,
  type Row,
} from '../src';
import { openTestDb, TEST_PROVIDERS, type TestDb } from '../src/testing';

describe.each(TEST_PROVIDERS)('the query builder on %s', (provider) => {
  let testDb: TestDb;
  const builder = queryBuilder(provider);
  let workflowId: string;
  beforeAll(async () => {
    testDb = await openTestDb(provider);
    const { db } = testDb.handle;
    const user = await db.user.create({ data: { login: 'ada', provider: 'dev', provider_subject: 'ada' } });
    const project = await db.project.create({ data: { name: 'P', created_by: user.id } });
    const workflow = await db.workflow.create({
      data: { project_id: project.id, created_by: user.id, requirement: 'r', title: 't', title_generated: true },
    });
    workflowId = workflow.id;
    await db.executionLogEntry.create({
      data: { workflow_id: workflow.id, seq: 1, tool_name: 'save_memo', tool_input: { note: 'ü' }, output: 'ok' },
    });
    await db.event.create({
      data: { workflow_id: workflow.id, seq: 1, type: 'workflow_action', data: { action: 'feedback', n: 2 } },
    });
  });
  afterAll(async () => testDb?.close());

  it('reads rows through the reader that decode to what Prisma reads', async () => {
    const { db, reader } = testDb.handle;
    const decode = rowDecoder(provider, 'workflows');
    const [raw] = await reader.rows(builder.selectFrom('workflows').selectAll().where('id', '=', workflowId));
    const row = decode<Row<'workflows'>>(raw);
    expect(row).toEqual(await db.workflow.findUniqueOrThrow({ where: { id: workflowId } }));
    expect(row.title_generated).toBe(true);
    expect(row.created_at).toBeInstanceOf(Date);
  });

  it('decodes JSON and boolean columns, and computed columns named as extra', async () => {
    const { reader } = testDb.handle;
    const decode = rowDecoder(provider, 'execution_log_entries', { logged: 'boolean' });
    const query = builder
      .selectFrom('execution_log_entries as e')
      .select(['e.tool_input', 'e.is_error'])
      .select((eb) =>
        eb.exists(eb.selectFrom('workflows').select('id').whereRef('id', '=', 'e.workflow_id')).as('logged'),
      )
      .where('e.workflow_id', '=', workflowId);
    const [row] = (await reader.rows(query)).map((raw) =>
      decode<{ tool_input: unknown; is_error: boolean; logged: boolean }>(raw),
    );
    expect(row).toEqual({ tool_input: { note: 'ü' }, is_error: false, logged: true });
  });

  it('matches a list held in one parameter, and reads JSON fields as text', async () => {
    const { reader } = testDb.handle;
    const byIds = (ids: string[]) =>
      builder
        .selectFrom('events')
        .select((eb) => jsonText(provider, eb.ref('data'), 'action').as('action'))
        .where((eb) => isAnyOf(provider, eb.ref('workflow_id'), ids));
    const one = byIds([workflowId, 'other']).compile();
    expect(byIds(['a', 'b', 'c']).compile().sql).toBe(one.sql);
    expect(await reader.rows(byIds([workflowId, 'other']))).toEqual([{ action: 'feedback' }]);
    expect(await reader.rows(byIds([]))).toEqual([]);
  });

  it('runs builder statements on the Prisma client, with dates and booleans as parameters', async () => {
    const { db } = testDb.handle;
    const at = new Date('2026-01-02T03:04:05.678Z');
    await selectRows(
      db,
      provider,
      builder.updateTable('workflows').set({ started_at: at, title_generated: false }).where('id', '=', workflowId),
    );
    const stored = await db.workflow.findUniqueOrThrow({ where: { id: workflowId } });
    expect(stored.started_at).toEqual(at);
    expect(stored.title_generated).toBe(false);
  });

  it('inserts rows sent as one JSON parameter, typed by the schema', async () => {
    const { db, reader } = testDb.handle;
    const columns = ['workflow_id', 'seq', 'kind', 'worker_id', 'created_at'] as const;
    const at = new Date('2026-03-04T05:06:07.890Z');
    const rows = [2, 3].map((seq) => ({
      workflow_id: workflowId,
      seq,
      kind: 'log_entry',
      worker_id: null,
      created_at: at,
    }));
    const sent = rows.map((row) => ({ ...row, created_at: encodeParameter(provider, at) }));
    const source = jsonRecords<Record<string, unknown>>(
      provider,
      columnTypes('worker_updates', columns),
      JSON.stringify(sent),
    ).as('x');
    await selectRows(
      db,
      provider,
      builder
        .insertInto('worker_updates')
        .columns([...columns])
        .expression((eb) => eb.selectFrom(source).select([...columns] as 'seq'[])),
    );
    const decode = rowDecoder(provider, 'worker_updates');
    const stored = (
      await reader.rows(
        builder.selectFrom('worker_updates').selectAll().where('workflow_id', '=', workflowId).orderBy('seq'),
      )
    ).map((raw) => decode<Row<'worker_updates'>>(raw));
    expect(stored).toEqual(rows);
  });

  it('runs a prepared statement with the values of each run', async () => {
    const { reader } = testDb.handle;
    const statement = prepare<{ ids: readonly string[]; type: string }>(provider, (arg) =>
      builder
        .selectFrom('events')
        .select(['workflow_id', 'type'])
        .where((eb) => isAnyOf(provider, eb.ref('workflow_id'), arg('ids')))
        .where('type', '=', arg('type')),
    );
    expect(await reader.rows(statement.bind({ ids: [workflowId], type: 'workflow_action' }))).toEqual([
      { workflow_id: workflowId, type: 'workflow_action' },
    ]);
    expect(await reader.rows(statement.bind({ ids: [workflowId], type: 'other' }))).toEqual([]);
    expect(await reader.rows(statement.bind({ ids: [], type: 'workflow_action' }))).toEqual([]);
  });
});
