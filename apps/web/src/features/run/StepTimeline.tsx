import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { planView, type StepDisplay } from '@svc/agent-core';
import { elapsedMs, formatClock, formatElapsed } from './time';
import { useNow } from '../../lib/use-now';
import type { PlanStepInfo, Workflow } from '@svc/protocol';
import type { WorkflowAction } from './wire';
import { planChanges, type PlanChanges } from './plan-diff';
import { usePlanBefore } from './usePlanBefore';
import { RevisionChanges, StepChangeBadge, StepWas } from './PlanChanges';

const LABELS: Record<StepDisplay, string> = {
  done: 'Done',
  running: 'Running',
  waiting: 'Waiting for input',
  paused: 'Paused',
  pending: 'Pending',
  failed: 'Failed',
  cancelled: 'Cancelled',
};
const ICONS: Record<StepDisplay, string> = {
  done: '✓',
  running: '▶',
  waiting: '?',
  paused: '⏸',
  pending: '○',
  failed: '✕',
  cancelled: '■',
};

interface Props {
  workflow: Workflow;
  steps: readonly PlanStepInfo[];
  loading: boolean;
  error: unknown;
  revising: boolean;
  /** the latest feedback that revised the plan, if known */
  revisedBy: WorkflowAction | null;
  /** the step the log is filtered to (0-based), or null */
  selected: number | null;
  onSelect(step: number | null): void;
}

/**
 * The plan as a timeline: each step's state and how long it took (or has been running), the current
 * step marked. Pressing a step filters the execution log to it; pressing it again shows every entry.
 */
export function StepTimeline({ workflow, steps, loading, error, revising, revisedBy, selected, onSelect }: Props) {
  const { steps: shownSteps, done, total, current } = planView(steps, workflow.status);
  const ticking = current?.display === 'running';
  const now = useNow(ticking);
  const changes = useRevisionChanges(workflow.id, steps, revising ? null : revisedBy);
  return (
    <section aria-labelledby="plan-heading" className="card run-timeline">
      <div className="section-head">
        <h2 id="plan-heading">Steps</h2>
        {steps.length > 0 && (
          <span className="muted small" data-testid="plan-count">
            {done} of {total} done
          </span>
        )}
      </div>
      {workflow.plan_revision > 0 && (
        <RevisionMarker revision={workflow.plan_revision} action={revisedBy} revising={revising} changes={changes} />
      )}
      {loading && steps.length === 0 && <Loading what="the plan" />}
      <ErrorNote error={error} />
      {!loading && steps.length === 0 && <Empty>No plan yet: the agent writes one when it starts planning.</Empty>}
      <ol className="plan timeline">
        {shownSteps.map((step) => {
          const shown = step.display;
          const isSelected = selected === step.index;
          return (
            <li
              key={`${step.index}:${step.title}`}
              className={`plan-step plan-step-${shown}${isSelected ? ' selected' : ''}`}
              data-step-index={step.index}
              aria-current={current?.index === step.index ? 'step' : undefined}
            >
              <button
                type="button"
                className="step-button"
                aria-pressed={isSelected}
                title={isSelected ? 'Show the whole log' : 'Show only this step in the log'}
                onClick={() => onSelect(isSelected ? null : step.index)}
              >
                <span className="step-number" aria-hidden="true">
                  {step.index + 1}
                </span>
                <span className="visually-hidden">Step {step.index + 1}: </span>
                <span className="plan-step-title">{step.title}</span>
                <StepChangeBadge change={changes?.steps[step.index]} />
                <span className={`step-state step-${shown}`} data-step-status={shown}>
                  <span aria-hidden="true">{ICONS[shown]}</span> {LABELS[shown]}
                </span>
                <StepDuration step={step} shown={shown} workflow={workflow} now={now} />
              </button>
              <StepWas change={changes?.steps[step.index]} />
              {step.description && <p className="plan-step-description">{step.description}</p>}
            </li>
          );
        })}
      </ol>
    </section>
  );
}

/**
 * What the latest revision changed, compared with the plan when its feedback came; null while the
 * revised plan is awaited (`feedback` null) or the old plan is still loading.
 */
function useRevisionChanges(
  workflowId: string,
  steps: readonly PlanStepInfo[],
  feedback: WorkflowAction | null,
): PlanChanges | null {
  const before = usePlanBefore(workflowId, feedback?.ts ?? null);
  return feedback && before ? planChanges(before.steps, steps) : null;
}

function StepDuration({
  step,
  shown,
  workflow,
  now,
}: {
  step: PlanStepInfo;
  shown: StepDisplay;
  workflow: Workflow;
  now: number;
}) {
  // An interrupted step ran until the workflow stopped.
  const end =
    shown === 'failed' || shown === 'cancelled' ? (step.finished_at ?? workflow.finished_at) : step.finished_at;
  const ms = shown === 'pending' ? null : elapsedMs(step.started_at, end, now);
  if (ms === null) return <span className="step-duration" data-duration="" />;
  const span = step.started_at
    ? `started ${formatClock(step.started_at)}${end ? `, ended ${formatClock(end)}` : ''}`
    : undefined;
  return (
    <span className="step-duration" data-duration={ms} title={span}>
      {formatElapsed(ms)}
    </span>
  );
}

function RevisionMarker({
  revision,
  action,
  revising,
  changes,
}: {
  revision: number;
  action: WorkflowAction | null;
  revising: boolean;
  changes: PlanChanges | null;
}) {
  return (
    <div className="revision-marker" data-testid="revision-marker" data-revision={revision}>
      <p>
        <strong>{revising ? 'Revising the plan' : `Plan revision ${revision}`}</strong>
        {action ? (
          <>
            {' '}
            after feedback from {action.actor.login} at <time dateTime={action.ts}>{formatClock(action.ts)}</time>:
          </>
        ) : (
          ' after feedback.'
        )}
      </p>
      {action?.message && <blockquote className="revision-feedback">{action.message}</blockquote>}
      {revising && <div className="small">Finished steps stay done until the revised plan says what runs again.</div>}
      {changes && <RevisionChanges changes={changes} />}
    </div>
  );
}
