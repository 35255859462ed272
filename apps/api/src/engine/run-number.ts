import { randomInt } from 'node:crypto';
import type { Prisma, RawClient } from '@svc/db';

/**
 * Takes the project's next run number inside the create's transaction (decision 0064). The counter's
 * row lock makes concurrent creates of one project wait for each other instead of colliding, and a
 * create that rolls back gives its number back. Raw SQL: Prisma's update would also touch `updated_at`.
 * Null when the project row is gone.
 */
export async function takeRunNumber(tx: Prisma.TransactionClient, projectId: string): Promise<number | null> {
  const rows = await tx.$queryRaw<{ last_workflow_number: number | bigint }[]>`
    UPDATE "projects" SET "last_workflow_number" = "last_workflow_number" + 1
    WHERE "id" = ${projectId} RETURNING "last_workflow_number"`;
  const taken = rows[0]?.last_workflow_number;
  return taken === undefined ? null : Number(taken);
}

/**
 * PostgreSQL: a run inserted with a provisional number (`provisionalRunNumber`) takes the project's next
 * one as the last statement of its create's transaction (decision 0066), so the counter's row lock is
 * held only until the COMMIT that follows, not across the create's other statements. Null when the
 * project row is gone.
 */
export async function numberInsertedRun(tx: RawClient, projectId: string, workflowId: string): Promise<number | null> {
  const rows = await tx.$queryRawUnsafe<{ number: number | bigint }[]>(
    `WITH taken AS (
      UPDATE "projects" SET "last_workflow_number" = "last_workflow_number" + 1
      WHERE "id" = $1 RETURNING "last_workflow_number")
    UPDATE "workflows" SET "number" = taken."last_workflow_number" FROM taken
    WHERE "workflows"."id" = $2 RETURNING "workflows"."number"`,
    projectId,
    workflowId,
  );
  const taken = rows[0]?.number;
  return taken === undefined ? null : Number(taken);
}

/**
 * A negative number no committed run has, for the moment between a run's INSERT and its numbering in
 * the same transaction. Two uncommitted creates that drew the same one do not fail: the unique index
 * makes the second wait for the first's commit, by which the first holds its real number.
 */
export const provisionalRunNumber = (): number => -randomInt(1, 2 ** 31 - 1);
