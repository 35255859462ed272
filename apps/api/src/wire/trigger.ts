import type { Trigger as TriggerRow, TriggerDelivery as DeliveryRow } from '@svc/db';
import type { Trigger, TriggerDelivery, TriggerFormat } from '@svc/protocol';
import { eventsOf } from '../triggers/deliveries';

/** A trigger without its secret; `url` is where deliveries go (PUBLIC_URL based). */
export function presentTrigger(row: TriggerRow, publicUrl: string): Trigger {
  return {
    id: row.id,
    project_id: row.project_id,
    name: row.name,
    format: row.format as TriggerFormat,
    url: `${publicUrl}/svc/api/hooks/${row.id}`,
    requirement_template: row.requirement_template,
    events: eventsOf(row),
    template: row.template,
    worker_id: row.worker_id,
    rate_limit_per_minute: row.rate_limit_per_minute,
    enabled: row.enabled,
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function presentDelivery(row: DeliveryRow): TriggerDelivery {
  return {
    id: row.id,
    trigger_id: row.trigger_id,
    delivery_id: row.delivery_id,
    event: row.event,
    workflow_id: row.workflow_id,
    received_at: row.received_at.toISOString(),
  };
}
