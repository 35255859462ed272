import { randomUUID } from 'node:crypto';
import { queryBuilder, selectRows, type Prisma, type RawClient, type Workflow } from '@svc/db';

/**
 * PostgreSQL: inserts a run's row as one raw statement and returns it as Prisma would (timestamps read
 * as UTC by the raw transaction). What Prisma's model API supplies itself is written here: the id (opaque:
 * a UUID where Prisma makes a cuid) and `updated_at`; the other defaults are the table's.
 */
export async function insertWorkflow(tx: RawClient, data: Prisma.WorkflowUncheckedCreateInput): Promise<Workflow> {
  const now = new Date();
  const statement = queryBuilder('postgresql')
    .insertInto('workflows')
    .values({ id: randomUUID(), ...data, created_at: now, updated_at: now } as never)
    .returningAll();
  const [row] = await selectRows<Workflow>(tx, 'postgresql', statement);
  return row!;
}
