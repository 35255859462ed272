import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { isNotFound } from '../lib/api';
import { queryKeys } from '../lib/query-keys';
import { shorten } from '../lib/format';
import { StatusBadge } from '../components/StatusBadge';
import { ErrorNote, Loading } from '../components/Feedback';
import { useProjects } from '../features/projects/hooks';
import { getWorkflow } from '../features/workflow/api';
import { liveWorkflow } from '../features/workflow/live-state';
import { useWorkflowLive } from '../features/workflow/useWorkflowLive';
import { PlanView } from '../features/workflow/PlanView';
import { QuestionBox } from '../features/workflow/QuestionBox';
import { FeedbackBox } from '../features/workflow/FeedbackBox';
import { WorkflowActions } from '../features/workflow/WorkflowActions';
import { WorkflowTabs } from '../features/workflow/WorkflowTabs';

export function WorkflowRoute() {
  const { projectId = '', workflowId = '' } = useParams();
  // Keyed so that live state never carries over from one workflow to another.
  return <WorkflowPage key={workflowId} projectId={projectId} workflowId={workflowId} />;
}

function WorkflowPage({ projectId, workflowId }: { projectId: string; workflowId: string }) {
  const { live, following } = useWorkflowLive(workflowId);
  const loaded = useQuery({ queryKey: queryKeys.workflow(workflowId), queryFn: () => getWorkflow(workflowId) });
  const projectName = useProjects().data?.find((p) => p.id === projectId)?.name ?? 'Project';
  const back = (
    <Link to={`/projects/${encodeURIComponent(projectId)}`} className="back">
      ← {shorten(projectName, 60)}
    </Link>
  );
  if (loaded.isPending) return <Loading what="the workflow" />;
  if (loaded.isError) {
    return (
      <div>
        {back}
        <ErrorNote>
          {isNotFound(loaded.error) ? 'This workflow does not exist or you cannot see it.' : undefined}
        </ErrorNote>
        {!isNotFound(loaded.error) && <ErrorNote error={loaded.error} />}
      </div>
    );
  }
  const workflow = liveWorkflow(loaded.data, live);
  return (
    <article className="workflow-page" aria-labelledby="workflow-title">
      {back}
      <header className="page-head">
        <div className="title-line">
          <h1 id="workflow-title">{workflow.title || 'Untitled workflow'}</h1>
          <StatusBadge status={workflow.status} />
          <span className={`following${following ? ' on' : ''}`} role="status" data-following={following}>
            {following ? 'Updating live' : 'Connecting to live updates…'}
          </span>
        </div>
        <WorkflowActions workflow={workflow} />
      </header>
      {workflow.status === 'failed' && workflow.error && <ErrorNote>Failed: {workflow.error}</ErrorNote>}
      <section aria-labelledby="requirement-heading" className="card">
        <h2 id="requirement-heading">Requirement</h2>
        <div className="requirement" data-testid="requirement">
          {workflow.requirement}
        </div>
        {workflow.template && <p className="muted small">Template: {workflow.template}</p>}
      </section>
      {workflow.status === 'waiting_user' && <QuestionBox workflow={workflow} />}
      <PlanView workflowId={workflow.id} events={live.planEvents} />
      {/* the server takes feedback only when no question is open and the workflow was not cancelled */}
      {workflow.status !== 'waiting_user' && workflow.status !== 'cancelled' && <FeedbackBox workflow={workflow} />}
      <WorkflowTabs workflow={workflow} live={live} />
    </article>
  );
}
