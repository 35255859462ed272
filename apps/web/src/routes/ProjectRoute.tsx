import { AuditPanel } from '../features/audit/AuditPanel';
import { useParams } from 'react-router';
import type { Project } from '@svc/protocol';
import { Empty, ErrorNote, Loading } from '../components/Feedback';
import { useDocumentTitle } from '../lib/document-title';
import { useCurrentUser } from '../features/auth/user-context';
import { useProjects } from '../features/projects/hooks';
import { DeleteProjectButton } from '../features/projects/DeleteProjectButton';
import { MembersPanel } from '../features/projects/MembersPanel';
import { TriggersPanel } from '../features/triggers/TriggersPanel';
import { WebhooksPanel } from '../features/webhooks/WebhooksPanel';
import { ProjectBudget } from '../features/budget/ProjectBudget';
import { CreateWorkflowForm } from '../features/workflows/CreateWorkflowForm';
import { WorkflowList } from '../features/workflows/WorkflowList';
import { SchedulesPanel } from '../features/schedules/SchedulesPanel';
import { RunLimit } from '../features/concurrency/RunLimit';
import { SecretsPanel } from '../features/secrets/SecretsPanel';
import { McpServersPanel } from '../features/mcp/McpServersPanel';
import { RepositoriesPanel } from '../features/repositories/RepositoriesPanel';

/** One project: start a workflow, its workflows (live), its schedules, members, secrets, MCP servers and repositories. */
export function ProjectRoute() {
  const { projectId = '' } = useParams();
  const projects = useProjects();
  const project = projects.data?.find((p) => p.id === projectId);
  useDocumentTitle(project?.name ?? (projects.isSuccess ? 'Project not found' : null));
  if (projects.isPending) return <Loading what="the project" />;
  if (projects.isError) return <ErrorNote error={projects.error} />;
  if (!project) return <Empty>This project does not exist, was deleted, or you are not a member of it.</Empty>;
  return <ProjectPage key={project.id} project={project} />;
}

function ProjectPage({ project }: { project: Project }) {
  const user = useCurrentUser();
  const ownerOrAdmin = project.role === 'owner' || user.is_admin;
  return (
    <div className="project-page">
      <header className="page-head">
        <div>
          {/* focusable by script: focus lands here after deleting the previous project */}
          <h1 tabIndex={-1}>{project.name}</h1>
          {project.description && <p className="muted">{project.description}</p>}
          <RunLimit project={project} canEdit={ownerOrAdmin} />
        </div>
        {ownerOrAdmin && <DeleteProjectButton project={project} />}
      </header>
      <CreateWorkflowForm projectId={project.id} />
      <WorkflowList projectId={project.id} />
      <SchedulesPanel projectId={project.id} />
      <TriggersPanel projectId={project.id} />
      <WebhooksPanel projectId={project.id} />
      <MembersPanel project={project} />
      <ProjectBudget project={project} canManage={ownerOrAdmin} />
      <SecretsPanel project={project} canManage={ownerOrAdmin} />
      <McpServersPanel project={project} canManage={ownerOrAdmin} />
      <RepositoriesPanel project={project} canManage={ownerOrAdmin} />
      {ownerOrAdmin && <AuditPanel project={project} />}
    </div>
  );
}
