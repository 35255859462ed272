import { WebhookEventTypeSchema, type WebhookEventType } from '@svc/protocol';

/** The public run events of the outbox (issue 25): what webhooks and notifications are told (one list, the protocol's). */
export const OUTBOX_EVENT_TYPES = WebhookEventTypeSchema.options;

export type OutboxEventType = WebhookEventType;

/**
 * One public run event as consumers get it. `data` holds what its cause gave (`question`, `error`,
 * `policy`/`reached`/`message`, `pr_url`/`number`/`branch`/`base`) and what the dispatcher adds from the
 * run: `title`, `number` (run number), `status`, `run_url`, `report_url`.
 */
export interface OutboxEvent {
  id: string;
  type: OutboxEventType;
  project_id: string;
  workflow_id: string;
  created_at: string;
  data: Record<string, unknown>;
}

/**
 * The batch of a consumer's events an event was handed out in. `shared` runs `load` once per batch and
 * key, for every event of the batch that asks: one look-up for all their projects, not one per event.
 * When it fails, every event that asked for it fails (and is retried).
 */
export interface OutboxBatch {
  readonly events: readonly OutboxEvent[];
  shared<T>(key: string, load: (events: readonly OutboxEvent[]) => Promise<T>): Promise<T>;
}

/** A batch of the given events (one event alone: a direct call, as the tests make). */
export function outboxBatch(events: readonly OutboxEvent[]): OutboxBatch {
  const loads = new Map<string, Promise<unknown>>();
  return {
    events,
    shared<T>(key: string, load: (events: readonly OutboxEvent[]) => Promise<T>): Promise<T> {
      let loading = loads.get(key) as Promise<T> | undefined;
      if (!loading) loads.set(key, (loading = load(events)));
      return loading;
    },
  };
}

/** Handles one event; must be idempotent (key on `event.id`): after a crash or a lost lease it runs again. */
export type OutboxHandler = (event: OutboxEvent, batch: OutboxBatch) => Promise<void>;
