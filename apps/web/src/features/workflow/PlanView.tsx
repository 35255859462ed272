import { useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../lib/query-keys';
import { StepBadge } from '../../components/StatusBadge';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { getPlan } from './api';
import { livePlan, planProgress, type PlanEvent } from './plan-state';

/** The plan: loaded once per (re)subscription, then kept current by live step events. */
export function PlanView({ workflowId, events }: { workflowId: string; events: readonly PlanEvent[] }) {
  const plan = useQuery({ queryKey: queryKeys.plan(workflowId), queryFn: () => getPlan(workflowId) });
  const steps = livePlan(plan.data ?? [], events);
  const progress = planProgress(steps);
  return (
    <section aria-labelledby="plan-heading" className="card">
      <div className="section-head">
        <h2 id="plan-heading">Plan</h2>
        {steps.length > 0 && (
          <span className="muted" aria-live="polite">
            {progress.done} of {progress.total} steps done
          </span>
        )}
      </div>
      {plan.isPending && steps.length === 0 && <Loading what="the plan" />}
      <ErrorNote error={plan.error} />
      {!plan.isPending && steps.length === 0 && (
        <Empty>No plan yet: the agent writes one when it starts planning.</Empty>
      )}
      <ol className="plan">
        {steps.map((step) => (
          <li
            key={step.index}
            className={`plan-step plan-step-${step.status}`}
            data-step-index={step.index}
            aria-current={step.status === 'running' ? 'step' : undefined}
          >
            <div className="plan-step-head">
              <span className="plan-step-title">{step.title}</span>
              <StepBadge status={step.status} />
            </div>
            {step.description && <p className="plan-step-description">{step.description}</p>}
          </li>
        ))}
      </ol>
    </section>
  );
}
