import type { Prisma, RawClient } from '@svc/db';

/**
 * SQLite: takes the project's next run number inside the create's transaction (decision 0064); its one
 * writer serialises creates anyway, and a create that rolls back gives its number back. Raw SQL:
 * Prisma's update would also touch `updated_at`. Null when the project row is gone.
 */
export async function takeRunNumber(tx: Prisma.TransactionClient, projectId: string): Promise<number | null> {
  const rows = await tx.$queryRaw<{ last_workflow_number: number | bigint }[]>`
    UPDATE "projects" SET "last_workflow_number" = "last_workflow_number" + 1
    WHERE "id" = ${projectId} RETURNING "last_workflow_number"`;
  return numberOf(rows);
}

/**
 * PostgreSQL (decision 0088): takes the project's next run number in a statement of its own, before the
 * create's transaction, committed without waiting for its WAL to reach the disk. The counter's row lock
 * is held for this statement only, never across a flush, so the creates of one project no longer wait
 * for each other's COMMITs. The run's own COMMIT is synchronous and flushes the WAL past this one: a
 * number that a committed run holds is never given again after a crash. A create that fails after it
 * leaves a gap. Null when the project row is gone.
 */
export async function takeRunNumberAhead(client: RawClient, projectId: string): Promise<number | null> {
  const rows = await client.$queryRawUnsafe<{ last_workflow_number: number | bigint }[]>(
    `WITH unflushed AS (SELECT set_config('synchronous_commit', 'off', true))
    UPDATE "projects" SET "last_workflow_number" = "last_workflow_number" + 1
    FROM unflushed WHERE "id" = $1 RETURNING "last_workflow_number"`,
    projectId,
  );
  return numberOf(rows);
}

const numberOf = (rows: { last_workflow_number: number | bigint }[]): number | null => {
  const taken = rows[0]?.last_workflow_number;
  return taken === undefined ? null : Number(taken);
};
