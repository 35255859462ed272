import type { NewEvent } from '../events/types';
import type { OutboxEventType } from './types';

/** What one appended workflow event means to the outbox: nothing, or one public event's type and data. */
export interface MappedEvent {
  type: OutboxEventType;
  data: Record<string, unknown>;
}

const record = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};

/**
 * Maps a workflow event (as the engine appends it) to a public run event: the `created` action, a move to
 * `waiting_user`, `completed`, `failed` or `cancelled`, a reached budget, and an opened pull request
 * (`pull_request_opened`, appended by the forge integration).
 */
export function outboxEventOf(event: Pick<NewEvent, 'type' | 'data'>): MappedEvent | null {
  const data = record(event.data);
  switch (event.type as string) {
    case 'workflow_action':
      return data.action === 'created' ? { type: 'run.created', data: {} } : null;
    case 'workflow_status':
      switch (data.status) {
        case 'waiting_user':
          return { type: 'run.waiting_for_input', data: { status: 'waiting_user', question: data.question ?? null } };
        case 'completed':
          return { type: 'run.completed', data: { status: 'completed' } };
        case 'failed':
          return { type: 'run.failed', data: { status: 'failed', error: data.error ?? null } };
        case 'cancelled':
          return { type: 'run.cancelled', data: { status: 'cancelled' } };
        default:
          return null;
      }
    case 'budget_exceeded':
      return {
        type: 'run.budget_reached',
        data: { policy: data.policy ?? null, reached: data.reached ?? [], message: data.message ?? null },
      };
    case 'pull_request_opened':
      return {
        type: 'run.pull_request_opened',
        data: {
          pr_url: data.url ?? null,
          pr_number: data.number ?? null,
          branch: data.branch ?? null,
          base: data.base ?? null,
        },
      };
    default:
      return null;
  }
}
