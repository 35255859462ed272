import { useEffect, useId, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { NavLink, useLocation, useMatch, useNavigate } from 'react-router';
import type { Project } from '@svc/protocol';
import { queryKeys } from '../../lib/query-keys';
import { shorten } from '../../lib/format';
import { ErrorNote, Loading } from '../../components/Feedback';
import { createProject } from './api';
import { useProjects } from './hooks';
import { InvitationsPanel } from './InvitationsPanel';
import { inBackground } from '../../lib/background';

/**
 * The project list (the current one is in the URL) and the form that creates a project. On a phone
 * it folds into a one-line "Projects" menu above the page, so the page's content comes first.
 */
export function ProjectSidebar() {
  const projects = useProjects();
  const current = useMatch({ path: '/projects/:projectId', end: false })?.params.projectId;
  const currentName = projects.data?.find((p) => p.id === current)?.name;
  const [open, setOpen] = useMenuOpen(projects.data?.length === 0);
  const bodyId = useId();
  return (
    <nav className={`sidebar${open ? ' open' : ''}`} aria-label="Projects">
      <button
        type="button"
        className="sidebar-toggle"
        aria-expanded={open}
        aria-controls={bodyId}
        onClick={() => setOpen(!open)}
      >
        <span>Projects</span>
        <span className="sidebar-toggle-current">
          {currentName ? shorten(currentName, 40) : ''} <span aria-hidden="true">{open ? '▴' : '▾'}</span>
        </span>
      </button>
      <div id={bodyId} className="sidebar-body">
        <h2>Projects</h2>
        <ProjectList projects={projects} />
        <InvitationsPanel />
        <CreateProjectForm />
      </div>
    </nav>
  );
}

/**
 * Whether the phone's menu is open: as the reader chose on this page; with no project yet it starts
 * open, as creating one is the next step.
 */
function useMenuOpen(noProjects: boolean): [boolean, (open: boolean) => void] {
  const { pathname } = useLocation();
  // null: not chosen on this page
  const [chosen, setChosen] = useState<boolean | null>(null);
  useEffect(() => setChosen(null), [pathname]);
  return [chosen ?? noProjects, setChosen];
}

function ProjectList({ projects }: { projects: ReturnType<typeof useProjects> }) {
  return (
    <>
      {projects.isPending && <Loading what="projects" />}
      <ErrorNote error={projects.error} />
      {projects.data && projects.data.length === 0 && <p className="muted">No projects yet.</p>}
      <ul className="project-list">
        {projects.data?.map((project) => (
          <li key={project.id}>
            <NavLink to={`/projects/${encodeURIComponent(project.id)}`} title={project.name}>
              {shorten(project.name, 40)}
            </NavLink>
          </li>
        ))}
      </ul>
    </>
  );
}

function CreateProjectForm() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: createProject,
    onSuccess: (project) => {
      queryClient.setQueryData<Project[]>(queryKeys.projects, (list) => [...(list ?? []), project]);
      inBackground(queryClient.invalidateQueries({ queryKey: queryKeys.projects }));
      setName('');
      inBackground(navigate(`/projects/${encodeURIComponent(project.id)}`));
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim()) create.mutate({ name: name.trim() });
  };
  return (
    <form onSubmit={submit} className="stack compact" aria-label="New project">
      <label>
        New project
        <input
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="Project name"
          maxLength={200}
          required
        />
      </label>
      <ErrorNote error={create.error} />
      <button type="submit" disabled={create.isPending}>
        Create project
      </button>
    </form>
  );
}
