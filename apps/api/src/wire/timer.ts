import type { Timer as TimerRow } from '@svc/db';
import type { Timer, TimerStatus } from '@svc/protocol';

export function presentTimer(row: TimerRow): Timer {
  return {
    id: row.id,
    workflow_id: row.workflow_id,
    fire_at: row.fire_at.toISOString(),
    reason: row.reason,
    status: row.status as TimerStatus,
  };
}
