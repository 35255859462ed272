import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import type { Project } from '@svc/protocol';
import { queryKeys } from '../../lib/query-keys';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorNote } from '../../components/Feedback';
import { deleteProject } from './api';
import { nextProjectAfterDelete } from './next-project';
import { inBackground } from '../../lib/background';

/**
 * Soft-deletes the project, then selects the next one in the list (spec rule 14); focus moves to
 * that project's heading (ConfirmButton's default when the button goes away).
 */
export function DeleteProjectButton({ project }: { project: Project }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const remove = useMutation({
    mutationFn: () => deleteProject(project.id),
    onSuccess: async () => {
      const before = queryClient.getQueryData<Project[]>(queryKeys.projects) ?? [project];
      const next = nextProjectAfterDelete(before, project.id);
      const forget = () =>
        queryClient.setQueryData<Project[]>(queryKeys.projects, (list) => list?.filter((p) => p.id !== project.id));
      // The deleted project's page never shows "does not exist" in between: go to the next one first,
      // but forget it first when none is left (the home page would open it again).
      if (next) {
        await navigate(`/projects/${encodeURIComponent(next)}`, { replace: true });
        forget();
      } else {
        forget();
        await navigate('/', { replace: true });
      }
      inBackground(queryClient.invalidateQueries({ queryKey: queryKeys.projects }));
    },
  });
  return (
    <div className="inline-actions">
      <ConfirmButton
        label="Delete project"
        question={`Delete project “${project.name}”? Its files are archived, not destroyed.`}
        confirmLabel="Yes, delete project"
        keepLabel="Keep project"
        busy={remove.isPending}
        busyLabel="Deleting…"
        onConfirm={() => remove.mutate()}
      />
      <ErrorNote error={remove.error} />
    </div>
  );
}
