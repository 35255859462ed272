import type { NewEvent } from '../events/types';
import type { OutboxEventType } from './types';

/** What one appended workflow event means to the outbox: nothing, or one public event's type and data. */
export interface MappedEvent {
  type: OutboxEventType;
  data: Record<string, unknown>;
}

const record = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};

/** A move to one of these statuses is public; its data from the status event's. */
const BY_STATUS: Record<string, (data: Record<string, unknown>) => MappedEvent> = {
  waiting_user: (data) => ({
    type: 'run.waiting_for_input',
    data: { status: 'waiting_user', question: data.question ?? null },
  }),
  completed: () => ({ type: 'run.completed', data: { status: 'completed' } }),
  failed: (data) => ({ type: 'run.failed', data: { status: 'failed', error: data.error ?? null } }),
  cancelled: () => ({ type: 'run.cancelled', data: { status: 'cancelled' } }),
};

const BY_TYPE: Record<string, (data: Record<string, unknown>) => MappedEvent | null> = {
  workflow_action: (data) => (data.action === 'created' ? { type: 'run.created', data: {} } : null),
  workflow_status: (data) => BY_STATUS[String(data.status)]?.(data) ?? null,
  budget_exceeded: (data) => ({
    type: 'run.budget_reached',
    data: { policy: data.policy ?? null, reached: data.reached ?? [], message: data.message ?? null },
  }),
  pull_request_opened: (data) => ({
    type: 'run.pull_request_opened',
    data: {
      pr_url: data.url ?? null,
      pr_number: data.number ?? null,
      branch: data.branch ?? null,
      base: data.base ?? null,
    },
  }),
};

/**
 * Maps a workflow event (as the engine appends it) to a public run event: the `created` action, a move to
 * `waiting_user`, `completed`, `failed` or `cancelled`, a reached budget, and an opened pull request
 * (`pull_request_opened`, appended by the forge integration).
 */
export function outboxEventOf(event: Pick<NewEvent, 'type' | 'data'>): MappedEvent | null {
  return BY_TYPE[event.type as string]?.(record(event.data)) ?? null;
}
