import { compileFor, isAnyOf, queryBuilder, type DbProvider, type SqlReader, type Workflow } from '@svc/db';
import type { RunAuthor } from '@svc/protocol';

/**
 * Who started each run of a list page (decision 0074): a schedule's tick (schedule_id), a trigger's
 * delivery (a trigger_deliveries row), else the person; always with the user in created_by. Two
 * statements, whatever the page size.
 */
export class RunAuthors {
  private readonly q;

  constructor(
    private readonly reader: SqlReader,
    private readonly provider: DbProvider,
  ) {
    this.q = queryBuilder(provider);
  }

  async of(rows: readonly Pick<Workflow, 'id' | 'created_by' | 'schedule_id'>[]): Promise<Map<string, RunAuthor>> {
    if (rows.length === 0) return new Map();
    const userIds = [...new Set(rows.map((row) => row.created_by))];
    const [users, triggered] = (await Promise.all([
      this.reader.rows(
        compileFor(
          this.provider,
          this.q
            .selectFrom('users')
            .select(['id', 'login', 'name'])
            .where((eb) => isAnyOf(this.provider, eb.ref('id'), userIds)),
        ),
      ),
      this.reader.rows(
        compileFor(
          this.provider,
          this.q
            .selectFrom('trigger_deliveries')
            .select('workflow_id')
            .where((eb) =>
              isAnyOf(
                this.provider,
                eb.ref('workflow_id'),
                rows.map((row) => row.id),
              ),
            ),
        ),
      ),
    ])) as [{ id: string; login: string; name: string | null }[], { workflow_id: string }[]];
    const people = new Map(users.map((user) => [user.id, user]));
    const byTrigger = new Set(triggered.map((delivery) => delivery.workflow_id));
    return new Map(
      rows.map((row) => {
        const kind = row.schedule_id !== null ? 'schedule' : byTrigger.has(row.id) ? 'trigger' : 'user';
        const person = people.get(row.created_by);
        const author: RunAuthor = {
          kind,
          user_id: row.created_by,
          login: person?.login ?? null,
          name: person?.name ?? null,
        };
        return [row.id, author];
      }),
    );
  }
}
