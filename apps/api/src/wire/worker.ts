import type { Worker as WorkerRow } from '@svc/db';
import type { Worker, WorkerStatus } from '@svc/protocol';

export function presentWorker(row: WorkerRow, active: number): Worker {
  const labels = Array.isArray(row.labels) ? row.labels.filter((l): l is string => typeof l === 'string') : [];
  return {
    id: row.id,
    name: row.name,
    labels,
    capacity: row.capacity,
    active,
    status: row.status === 'online' ? 'online' : ('offline' satisfies WorkerStatus),
    last_seen_at: row.last_seen_at.toISOString(),
    version: row.version,
    admin_state: adminStateOf(row, active),
  };
}

/** What an administrator set (decision 0074); drained is derived from the runs, so every replica agrees. */
function adminStateOf(row: WorkerRow, active: number): NonNullable<Worker['admin_state']> {
  if (row.paused_at === null) return 'active';
  if (!row.draining) return 'paused';
  return active === 0 ? 'drained' : 'draining';
}
