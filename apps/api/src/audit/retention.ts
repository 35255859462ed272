import type { Db } from '@svc/db';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Deletes audit events older than the retention (`AUDIT_RETENTION_DAYS`; 0 keeps them forever). The only deletion of rows. */
export async function pruneAuditEvents(db: Db, retentionDays: number, now = new Date()): Promise<number> {
  if (retentionDays <= 0) return 0;
  const cutoff = new Date(now.getTime() - retentionDays * DAY_MS);
  return (await db.auditEvent.deleteMany({ where: { at: { lt: cutoff } } })).count;
}
