import { useRef } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { isNotFound } from '../lib/api';
import { shorten } from '../lib/format';
import { useDocumentTitle } from '../lib/document-title';
import { ErrorNote, Loading } from '../components/Feedback';
import { useProjects } from '../features/projects/hooks';
import { ReceivedSoFarContext } from '../features/workflow/live-context';
import { planView } from '@svc/agent-core';
import { QuestionBox } from '../features/workflow/QuestionBox';
import { FeedbackBox } from '../features/workflow/FeedbackBox';
import { WorkflowTabs } from '../features/workflow/WorkflowTabs';
import { useRun } from '../features/run/useRun';
import { useActivity } from '../features/run/useActivity';
import { useUsage } from '../features/run/useUsage';
import { FocusRescueContext, useFocusRescue } from '../features/run/focus-rescue';
import { progressLine } from '../features/run/progress';
import { RunHeader } from '../features/run/RunHeader';
import { ResultCard } from '../features/run/ResultCard';
import { CancelledNotice, FailureBanner } from '../features/run/StopNotice';
import { StepTimeline } from '../features/run/StepTimeline';
import { ActivityFeed } from '../features/run/ActivityFeed';
import { stepFromParam, stepParam } from '../features/run/step-param';
import '../features/run/run.css';

export function WorkflowRoute() {
  const { projectId = '', workflowId = '' } = useParams();
  // Keyed so that live state never carries over from one workflow to another.
  return <WorkflowPage key={workflowId} projectId={projectId} workflowId={workflowId} />;
}

function WorkflowPage({ projectId, workflowId }: { projectId: string; workflowId: string }) {
  const run = useRun(workflowId);
  const activity = useActivity(workflowId, run.live.actions, run.following);
  const usage = useUsage(workflowId, run.live.llmCalls, run.following);
  const [params, setParams] = useSearchParams();
  const titleRef = useRef<HTMLHeadingElement>(null);
  const focusRescue = useFocusRescue(titleRef);
  const workflow = run.workflow;
  useDocumentTitle(workflow ? `${workflow.number > 0 ? `#${workflow.number} ` : ''}${workflow.title}` : null);
  const projectName = useProjects().data?.find((p) => p.id === projectId)?.name ?? 'Project';
  const back = (
    <Link to={`/projects/${encodeURIComponent(projectId)}`} className="back">
      ← {shorten(projectName, 60)}
    </Link>
  );
  if (run.record.isPending) return <Loading what="the workflow" />;
  if (!workflow) {
    return (
      <div>
        {back}
        <ErrorNote>
          {isNotFound(run.record.error) ? 'This workflow does not exist or you cannot see it.' : undefined}
        </ErrorNote>
        {!isNotFound(run.record.error) && <ErrorNote error={run.record.error} />}
      </div>
    );
  }
  const steps = run.plan.steps;
  const stepFilter = stepFromParam(params.get('step'), steps.length);
  const setStepFilter = (step: number | null) =>
    setParams(
      (p) => {
        if (step === null) p.delete('step');
        else {
          p.set('step', stepParam(step));
          p.set('tab', 'log');
        }
        return p;
      },
      { replace: true },
    );
  const { current } = planView(steps, workflow.status);
  const actions = activity.actions;
  const latest = (kind: string) => [...actions].reverse().find((a) => a.action === kind) ?? null;
  return (
    <ReceivedSoFarContext.Provider value={run.receivedSoFar}>
      <FocusRescueContext.Provider value={focusRescue}>
        <article className="workflow-page run-page" aria-labelledby="workflow-title">
          {back}
          <RunHeader
            workflow={workflow}
            progress={progressLine(workflow.status, steps, run.revising, workflow.started_at !== null)}
            following={run.following}
            usage={usage}
            titleRef={titleRef}
          />
          {workflow.status === 'failed' && <FailureBanner workflow={workflow} step={current} />}
          {workflow.status === 'cancelled' && <CancelledNotice workflow={workflow} by={latest('cancelled')} />}
          {workflow.status === 'completed' && <ResultCard workflow={workflow} />}
          <QuestionBox workflow={workflow} actions={actions} />
          <div className="run-body">
            <div className="run-side">
              <StepTimeline
                workflow={workflow}
                steps={steps}
                loading={run.plan.loading}
                error={run.plan.error}
                revising={run.revising}
                revisedBy={latest('feedback')}
                selected={stepFilter}
                onSelect={setStepFilter}
              />
            </div>
            <div className="run-main">
              <WorkflowTabs
                workflow={workflow}
                live={run.live}
                stepFilter={stepFilter}
                onStepFilterChange={setStepFilter}
              />
            </div>
            <div className="run-side run-more">
              <section aria-labelledby="requirement-heading" className="card">
                <h2 id="requirement-heading">Requirement</h2>
                <div className="requirement" data-testid="requirement">
                  {workflow.requirement}
                </div>
                {workflow.template && <p className="muted small">Template: {workflow.template}</p>}
              </section>
              {/* the server takes feedback only when no question is open and the workflow was not cancelled */}
              {workflow.status !== 'waiting_user' && workflow.status !== 'cancelled' && (
                <FeedbackBox workflow={workflow} />
              )}
              <ActivityFeed actions={actions} error={activity.error} />
            </div>
          </div>
        </article>
      </FocusRescueContext.Provider>
    </ReceivedSoFarContext.Provider>
  );
}
