import { useId, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { CreateWorkflowRequest } from '@svc/protocol';
import { queryKeys } from '../../lib/query-keys';
import { ErrorNote } from '../../components/Feedback';
import { createWorkflow, listTemplates, listWorkers } from './api';

/** Starts a workflow: a multi-line requirement, optionally a worker and a template. */
export function CreateWorkflowForm({ projectId }: { projectId: string }) {
  const queryClient = useQueryClient();
  const id = useId();
  const [requirement, setRequirement] = useState('');
  const [workerId, setWorkerId] = useState('');
  const [template, setTemplate] = useState('');
  const workers = useQuery({ queryKey: queryKeys.workers, queryFn: listWorkers });
  const templates = useQuery({ queryKey: queryKeys.templates, queryFn: listTemplates });
  const create = useMutation({
    mutationFn: (body: CreateWorkflowRequest) => createWorkflow(projectId, body),
    onSuccess: () => {
      setRequirement('');
      void queryClient.invalidateQueries({ queryKey: queryKeys.workflows(projectId) });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!requirement.trim()) return;
    create.mutate({
      requirement,
      ...(workerId ? { worker_id: workerId } : {}),
      ...(template ? { template } : {}),
    });
  };
  return (
    <section aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>New workflow</h2>
      <form onSubmit={submit} className="stack">
        <label>
          Requirement
          <textarea
            name="requirement"
            value={requirement}
            onChange={(e) => setRequirement(e.target.value)}
            rows={6}
            required
            placeholder={'What should be built?\nOne requirement per line is fine; line breaks are kept.'}
          />
        </label>
        <div className="row">
          <label>
            Worker
            <select name="worker" value={workerId} onChange={(e) => setWorkerId(e.target.value)}>
              <option value="">Any available worker</option>
              {workers.data?.map((w) => (
                <option key={w.id} value={w.id}>
                  {`${w.name} (${[w.status, ...w.labels].join(', ')})`}
                </option>
              ))}
            </select>
          </label>
          <label>
            Template
            <select name="template" value={template} onChange={(e) => setTemplate(e.target.value)}>
              <option value="">No template (the agent may pick one)</option>
              {templates.data?.map((t) => (
                <option key={t.name} value={t.name} title={t.description}>
                  {t.name}
                </option>
              ))}
            </select>
          </label>
        </div>
        <ErrorNote error={workers.error ?? templates.error} />
        <ErrorNote error={create.error} />
        {create.isSuccess && (
          <p className="success" role="status">
            Workflow created.
          </p>
        )}
        <div>
          <button type="submit" className="primary" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Start workflow'}
          </button>
        </div>
      </form>
    </section>
  );
}
