/** The public run events of the outbox (issue 25): what webhooks and notifications are told. */
export const OUTBOX_EVENT_TYPES = [
  'run.created',
  'run.waiting_for_input',
  'run.completed',
  'run.failed',
  'run.cancelled',
  'run.budget_reached',
  'run.pull_request_opened',
] as const;

export type OutboxEventType = (typeof OUTBOX_EVENT_TYPES)[number];

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
