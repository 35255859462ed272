import { useRef, type ReactNode } from 'react';
import type { Workflow } from '@svc/protocol';
import { Link, useParams, useSearchParams } from 'react-router';
import { isNotFound } from '../lib/api';
import { shorten } from '../lib/format';
import { useDocumentTitle } from '../lib/document-title';
import { ErrorNote, Loading } from '../components/Feedback';
import { useProjects } from '../features/projects/hooks';
import { ReceivedSoFarContext } from '../features/workflow/live-context';
import { planView } from '@svc/agent-core';
import { QuestionBox } from '../features/workflow/QuestionBox';
import { JumpToTabs, useOpenTab, WorkflowTabs } from '../features/workflow/WorkflowTabs';
import { useRun } from '../features/run/useRun';
import { useActivity } from '../features/run/useActivity';
import { useUsage } from '../features/run/useUsage';
import { FocusRescueContext, useFocusRescue } from '../features/run/focus-rescue';
import { progressLine } from '../features/run/progress';
import { RunHeader } from '../features/run/RunHeader';
import { RunMore } from '../features/run/RunMore';
import { RunOutcome } from '../features/run/RunOutcome';
import { RunBudget } from '../features/budget/RunBudget';
import { RoutingNote } from '../features/run/RoutingNote';
import { StepTimeline } from '../features/run/StepTimeline';
import { stepFromParam, stepParam } from '../features/run/step-param';
import { TriggerPayload } from '../features/triggers/TriggerPayload';
import '../features/run/run.css';

export function WorkflowRoute() {
  const { projectId = '', workflowId = '' } = useParams();
  // Keyed so that live state never carries over from one workflow to another.
  return <WorkflowPage key={workflowId} projectId={projectId} workflowId={workflowId} />;
}

function WorkflowPage({ projectId, workflowId }: { projectId: string; workflowId: string }) {
  const run = useRun(workflowId);
  const activity = useActivity(workflowId, run.live, run.following);
  const usage = useUsage(workflowId, run.live.llmCalls, run.following);
  const titleRef = useRef<HTMLHeadingElement>(null);
  const focusRescue = useFocusRescue(titleRef);
  const workflow = run.workflow;
  useDocumentTitle(workflow ? runTitle(workflow) : null);
  const steps = run.plan.steps;
  const [stepFilter, setStepFilter] = useStepFilter(steps.length);
  const reportTabOpen = useOpenTab() === 'report';
  const back = <BackLink projectId={projectId} />;
  if (run.record.isPending) return <Loading what="the workflow" />;
  if (!workflow) return <WorkflowMissing back={back} error={run.record.error} />;
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
          <JumpToTabs />
          <RunOutcome
            workflow={workflow}
            step={current}
            cancelledBy={latest('cancelled')}
            reportTabOpen={reportTabOpen}
          />
          <RoutingNote workflow={workflow} />
          <QuestionBox workflow={workflow} actions={actions} />
          <TriggerPayload workflowId={workflow.id} />
          <RunBudget workflow={workflow} changes={run.live.llmCalls.length} />
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
            <RunMore workflow={workflow} activity={activity.entries} activityError={activity.error} />
          </div>
        </article>
      </FocusRescueContext.Provider>
    </ReceivedSoFarContext.Provider>
  );
}

/** `#3 Build a shop` (a run without a number: just its title). */
const runTitle = (workflow: Workflow) =>
  workflow.number > 0 ? `#${workflow.number} ${workflow.title}` : workflow.title;

/** The step the log and the timeline show (`?step=`, 1-based); choosing one opens the log. */
function useStepFilter(stepCount: number): [number | null, (step: number | null) => void] {
  const [params, setParams] = useSearchParams();
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
  return [stepFromParam(params.get('step'), stepCount), setStepFilter];
}

function BackLink({ projectId }: { projectId: string }) {
  const projectName = useProjects().data?.find((p) => p.id === projectId)?.name ?? 'Project';
  return (
    <Link to={`/projects/${encodeURIComponent(projectId)}`} className="back">
      ← {shorten(projectName, 60)}
    </Link>
  );
}

/** A workflow that failed to load: not there (or not visible to this user), or another error. */
function WorkflowMissing({ back, error }: { back: ReactNode; error: unknown }) {
  const notFound = isNotFound(error);
  return (
    <div>
      {back}
      <h1 tabIndex={-1}>{notFound ? 'Run not found' : 'The run could not be loaded'}</h1>
      <ErrorNote>{notFound ? 'This workflow does not exist or you cannot see it.' : undefined}</ErrorNote>
      {!notFound && <ErrorNote error={error} />}
    </div>
  );
}
