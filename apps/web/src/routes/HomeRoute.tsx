import { Navigate } from 'react-router';
import { ErrorNote, Loading } from '../components/Feedback';
import { useDocumentTitle } from '../lib/document-title';
import { useProjects } from '../features/projects/hooks';

/** Opens the first project; with none, points at the form that creates one. */
export function HomeRoute() {
  const projects = useProjects();
  useDocumentTitle('Projects');
  if (projects.isPending) return <Loading what="projects" />;
  if (projects.isError) return <ErrorNote error={projects.error} />;
  const first = projects.data[0];
  if (first) return <Navigate to={`/projects/${encodeURIComponent(first.id)}`} replace />;
  return (
    <div className="card">
      <h1 tabIndex={-1}>Welcome</h1>
      <p>Create a project with the form under “Projects” to start your first workflow.</p>
    </div>
  );
}
