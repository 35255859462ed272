import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ProjectSchema, type Project } from '@svc/protocol';
import { apiJson } from '../../lib/api';
import { queryKeys } from '../../lib/query-keys';
import { ErrorNote } from '../../components/Feedback';

const setMaxRunning = (projectId: string, maxRunning: number | null) =>
  apiJson(`/projects/${encodeURIComponent(projectId)}`, ProjectSchema, {
    method: 'PATCH',
    json: { max_running: maxRunning },
  });

/** The project's run limit (decision 0037): shown to everyone, changed by owners. */
export function RunLimit({ project, canEdit }: { project: Project; canEdit: boolean }) {
  const queryClient = useQueryClient();
  const [value, setValue] = useState(project.max_running?.toString() ?? '');
  const save = useMutation({
    mutationFn: (maxRunning: number | null) => setMaxRunning(project.id, maxRunning),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.projects }),
  });
  const shown = project.max_running === null ? 'no limit' : `at most ${project.max_running} at once`;
  if (!canEdit) return <p className="muted run-limit">Running runs: {shown}</p>;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(value.trim() === '' ? null : Number(value));
  };
  return (
    <form className="row run-limit" aria-label="Run limit" onSubmit={submit}>
      <label>
        Running runs at once
        <input
          type="number"
          name="max_running"
          min={1}
          max={10000}
          step={1}
          placeholder="no limit"
          value={value}
          onChange={(e) => setValue(e.target.value)}
        />
      </label>
      <button type="submit" aria-disabled={save.isPending || undefined}>
        Save limit
      </button>
      <ErrorNote error={save.error} />
    </form>
  );
}
