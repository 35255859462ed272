import type { Prisma } from '@svc/db';

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
