import { on, type ClusterBus } from '../cluster/bus';
import type { EventStore } from '../events';
import type { WorkflowEngine } from './engine';

/**
 * Browsers see a transition's events in order: its `workflow_status` event, then the project lists'
 * `project_changed` notice, then the rest (the action's event).
 */
export function fanOutTransitions(engine: WorkflowEngine, events: EventStore): () => void {
  return engine.on('transitioned', (change) => {
    const status = change.publish.filter((e) => e.type === 'workflow_status');
    events.publish(status);
    if (change.listChanged)
      events.publishProject(change.workflow.project_id, {
        change: 'workflow_updated',
        workflow_id: change.workflow.id,
      });
    events.publish(change.publish.filter((e) => e.type !== 'workflow_status'));
  });
}

/**
 * Caches of run rows (the ingest's) read a changed run again, on this replica and on the others (the
 * cluster bus carries the `forget` message; what arrives from there is only forgotten here).
 */
export function forgetStaleRuns(engine: WorkflowEngine, bus: ClusterBus, forgetHere: (ids: string[]) => void) {
  const stops = [
    engine.on('stale', ({ workflowIds }) => {
      forgetHere(workflowIds);
      bus.publish({ type: 'forget', workflow_ids: workflowIds });
    }),
    on(bus, 'forget', (message) => forgetHere(message.workflow_ids)),
  ];
  return () => stops.forEach((stop) => stop());
}
