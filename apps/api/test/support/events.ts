import type { Db, DbProvider } from '@svc/db';
import { EventStore, LocalFanout, type StoredEvent } from '../../src/events';

/**
 * A workflow's stored event stream as a replay gives it: every seq in order (a stored row may stand
 * for two events, so the `events` table alone is not the stream).
 */
export async function storedStream(db: Db, provider: DbProvider, workflowId: string): Promise<StoredEvent[]> {
  const { project_id } = await db.workflow.findUniqueOrThrow({
    where: { id: workflowId },
    select: { project_id: true },
  });
  // Only reads: no writer.
  return new EventStore({ db, provider, fanout: new LocalFanout(), sqliteWriter: null }).since(
    { id: workflowId, project_id },
    0,
    1_000_000,
  );
}
