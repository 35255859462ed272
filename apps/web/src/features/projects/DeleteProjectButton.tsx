import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import type { Project } from '@svc/protocol';
import { queryKeys } from '../../lib/query-keys';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorNote } from '../../components/Feedback';
import { deleteProject } from './api';
import { nextProjectAfterDelete } from './next-project';

/** Soft-deletes the project, then selects the next one in the list (spec rule 14). */
export function DeleteProjectButton({ project }: { project: Project }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const remove = useMutation({
    mutationFn: () => deleteProject(project.id),
    onSuccess: () => {
      const before = queryClient.getQueryData<Project[]>(queryKeys.projects) ?? [project];
      const next = nextProjectAfterDelete(before, project.id);
      queryClient.setQueryData<Project[]>(
        queryKeys.projects,
        before.filter((p) => p.id !== project.id),
      );
      void queryClient.invalidateQueries({ queryKey: queryKeys.projects });
      navigate(next ? `/projects/${encodeURIComponent(next)}` : '/', { replace: true });
    },
  });
  return (
    <div className="inline-actions">
      <ConfirmButton
        label="Delete project"
        question={`Delete project “${project.name}”? Its files are archived, not destroyed.`}
        confirmLabel="Yes, delete"
        busy={remove.isPending}
        onConfirm={() => remove.mutate()}
      />
      <ErrorNote error={remove.error} />
    </div>
  );
}
