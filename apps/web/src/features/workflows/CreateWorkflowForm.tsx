import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useSearchParams } from 'react-router';
import { queryKeys } from '../../lib/query-keys';
import { shorten } from '../../lib/format';
import { ErrorNote } from '../../components/Feedback';
import type { CreateWorkflowRequest, Workflow } from '@svc/protocol';
import { getRun, listTemplates, listWorkers, newIdempotencyKey, startRun } from './api';
import { inBackground } from '../../lib/background';

export const RERUN_PARAM = 'rerun';

/**
 * Starts a workflow: a multi-line requirement, optionally a worker and a template, and opens its page.
 * With `?rerun=<workflow id>` it starts prefilled from that workflow, to re-run it with an edited requirement.
 */
export function CreateWorkflowForm({ projectId }: { projectId: string }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const id = useId();
  const [params, setParams] = useSearchParams();
  const rerunId = params.get(RERUN_PARAM);
  const [requirement, setRequirement] = useState('');
  const [workerId, setWorkerId] = useState('');
  const [template, setTemplate] = useState('');
  const [rerunOf, setRerunOf] = useState<Workflow | null>(null);
  const textareaRef = useRef<HTMLTextAreaElement>(null);
  // One key per submission of this form's content: sending the same content again (a double click,
  // a retry after a lost answer) reuses it, so the server starts one run; any edit makes a new one.
  const idempotencyKey = useRef(newIdempotencyKey());
  const edited = () => (idempotencyKey.current = newIdempotencyKey());

  const workers = useQuery({ queryKey: queryKeys.workers, queryFn: listWorkers });
  const templates = useQuery({ queryKey: queryKeys.templates, queryFn: listTemplates });
  const source = useQuery({
    queryKey: queryKeys.rerunSource(rerunId ?? ''),
    queryFn: () => getRun(rerunId ?? ''),
    enabled: rerunId !== null,
  });

  useEffect(() => {
    const run = source.data;
    if (!run || run.id !== rerunId || run.project_id !== projectId) return;
    setRerunOf(run);
    setRequirement(run.requirement);
    setTemplate(run.template ?? '');
    setWorkerId('');
    idempotencyKey.current = newIdempotencyKey();
    textareaRef.current?.focus();
  }, [source.data, rerunId, projectId]);

  const create = useMutation({
    mutationFn: ({ body, key }: { body: CreateWorkflowRequest; key: string }) => startRun(projectId, body, key),
    onSuccess: (run) => {
      inBackground(queryClient.invalidateQueries({ queryKey: queryKeys.workflows(projectId) }));
      inBackground(navigate(`/projects/${encodeURIComponent(projectId)}/workflows/${encodeURIComponent(run.id)}`));
    },
  });
  // a second submit before React re-rendered the disabled button (a fast double click) goes nowhere
  const inFlight = useRef(false);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!requirement.trim() || inFlight.current) return;
    inFlight.current = true;
    const body: CreateWorkflowRequest = {
      requirement,
      ...(workerId ? { worker_id: workerId } : {}),
      ...(template ? { template } : {}),
      ...(rerunOf ? { rerun_of: rerunOf.id } : {}),
    };
    create.mutate({ body, key: idempotencyKey.current }, { onSettled: () => (inFlight.current = false) });
  };
  const startFresh = () => {
    setParams((next) => {
      next.delete(RERUN_PARAM);
      return next;
    });
    setRerunOf(null);
    setRequirement('');
    setTemplate('');
    edited();
  };

  const chosenTemplate = templates.data?.find((t) => t.name === template);
  const rerunMissing = rerunId !== null && (source.isError || (source.data && source.data.project_id !== projectId));
  return (
    <section aria-labelledby={`${id}-heading`} className="create-run">
      <h2 id={`${id}-heading`}>{rerunOf ? `Re-run #${rerunOf.number}` : 'New workflow'}</h2>
      {rerunOf && (
        <p className="rerun-note" role="status">
          Starting from “{shorten(rerunOf.title || 'Untitled workflow', 80)}”: edit the requirement, then start.{' '}
          <button type="button" className="link-button" onClick={startFresh}>
            Start from scratch instead
          </button>
        </p>
      )}
      {rerunMissing && <ErrorNote>The workflow to re-run was not found in this project.</ErrorNote>}
      <form onSubmit={submit} className="stack" aria-label={rerunOf ? 'Re-run workflow' : 'New workflow'}>
        <label>
          Requirement
          <textarea
            ref={textareaRef}
            name="requirement"
            value={requirement}
            onChange={(e) => {
              setRequirement(e.target.value);
              edited();
            }}
            rows={6}
            required
            placeholder={'What should be built?\nOne requirement per line is fine; line breaks are kept.'}
          />
        </label>
        <div className="row">
          <label>
            Worker
            <select
              name="worker"
              value={workerId}
              onChange={(e) => {
                setWorkerId(e.target.value);
                edited();
              }}
            >
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
            <select
              name="template"
              value={template}
              aria-describedby={`${id}-template-help`}
              onChange={(e) => {
                setTemplate(e.target.value);
                edited();
              }}
            >
              <option value="">No template (the agent may pick one)</option>
              {templates.data?.map((t) => (
                <option key={t.name} value={t.name} title={t.description}>
                  {t.description ? `${t.name} — ${shorten(t.description, 60)}` : t.name}
                </option>
              ))}
            </select>
          </label>
        </div>
        <p id={`${id}-template-help`} className="hint template-help">
          {chosenTemplate
            ? chosenTemplate.description || `The ${chosenTemplate.name} template.`
            : 'The agent starts from an empty workspace, or picks a template itself.'}
        </p>
        <ErrorNote error={workers.error ?? templates.error} />
        <ErrorNote error={create.error} />
        <div>
          {/* aria-disabled, not disabled: focus stays on the button (an error is read out next to it) */}
          <button type="submit" className="primary" aria-disabled={create.isPending || undefined}>
            {create.isPending ? 'Starting…' : rerunOf ? 'Start re-run' : 'Start workflow'}
          </button>
        </div>
      </form>
    </section>
  );
}
