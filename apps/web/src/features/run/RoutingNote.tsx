import type { Workflow } from '@svc/protocol';

/**
 * The worker labels a run requires, and while no online worker has them, the notice saying so
 * (issue 23): the run waits for such a worker instead of silently.
 */
export function RoutingNote({ workflow }: { workflow: Workflow }) {
  if (workflow.requires.length === 0 && !workflow.waiting_reason) return null;
  return (
    <section className="routing-note" aria-label="Worker labels">
      {workflow.requires.length > 0 && (
        <p>
          Runs on a worker with the labels{' '}
          {workflow.requires.map((label) => (
            <span key={label} className="label-chip">
              {label}
            </span>
          ))}
        </p>
      )}
      {workflow.waiting_reason && (
        <p role="status" className="routing-waiting">
          Waiting: {workflow.waiting_reason}. It starts as soon as such a worker connects.
        </p>
      )}
    </section>
  );
}
