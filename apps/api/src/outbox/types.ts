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

/** Handles one event; must be idempotent (key on `event.id`): after a crash or a lost lease it runs again. */
export type OutboxHandler = (event: OutboxEvent) => Promise<void>;
