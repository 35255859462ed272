import { Navigate, useNavigation } from 'react-router';
import { ErrorNote, Loading } from '../components/Feedback';
import { useDocumentTitle } from '../lib/document-title';
import { useProjects } from '../features/projects/hooks';

/**
 * Opens the first project; with none, points at the form that creates one. A link followed while the
 * projects load wins: the redirect would otherwise overtake that navigation and open the project instead.
 */
export function HomeRoute() {
  const projects = useProjects();
  const leaving = useNavigation().state !== 'idle';
  useDocumentTitle('Projects');
  if (projects.isPending || leaving) return <Loading what="projects" />;
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
