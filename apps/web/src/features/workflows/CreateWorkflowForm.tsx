import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useSearchParams } from 'react-router';
import { queryKeys } from '../../lib/query-keys';
import { shorten } from '../../lib/format';
import { ErrorNote } from '../../components/Feedback';
import type { CreateWorkflowRequest, Workflow } from '@svc/protocol';
import { getRun, newIdempotencyKey, startRun } from './api';
import { RunOptions } from './RunOptions';
import { NO_QUEUE_CHOICE, QueueOptions, queueFields, type QueueChoice } from './QueueOptions';
import { inBackground } from '../../lib/background';
import {
  NO_REPOSITORY,
  RepositoryChoice,
  repositoryField,
  type RepositoryChoiceValue,
} from '../repositories/RepositoryChoice';

export const RERUN_PARAM = 'rerun';

/**
 * Starts a workflow: a multi-line requirement, optionally a worker and a template, and opens its page.
 * With `?rerun=<workflow id>` it starts prefilled from that workflow, to re-run it with an edited requirement.
 */
export function CreateWorkflowForm({ projectId }: { projectId: string }) {
  const id = useId();
  const [params, setParams] = useSearchParams();
  const rerunId = params.get(RERUN_PARAM);
  const [requirement, setRequirement] = useState('');
  const [workerId, setWorkerId] = useState('');
  const [template, setTemplate] = useState('');
  const [queue, setQueue] = useState<QueueChoice>(NO_QUEUE_CHOICE);
  const [labels, setLabels] = useState('');
  const [repository, setRepository] = useState<RepositoryChoiceValue>(NO_REPOSITORY);
  const [rerunOf, setRerunOf] = useState<Workflow | null>(null);
  const textareaRef = useRef<HTMLTextAreaElement>(null);
  // One key per submission of this form's content: sending the same content again (a double click,
  // a retry after a lost answer) reuses it, so the server starts one run; any edit makes a new one.
  const idempotencyKey = useRef(newIdempotencyKey());
  const edited = () => (idempotencyKey.current = newIdempotencyKey());

  const rerunMissing = useRerunSource(rerunId, projectId, (run) => {
    setRerunOf(run);
    setRequirement(run.requirement);
    setTemplate(run.template ?? '');
    setLabels(run.requires.join(', '));
    setWorkerId('');
    idempotencyKey.current = newIdempotencyKey();
    textareaRef.current?.focus();
  });
  const create = useStartRun(projectId);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!requirement.trim()) return;
    const body: CreateWorkflowRequest = {
      requirement,
      ...(workerId ? { worker_id: workerId } : {}),
      ...(template ? { template } : {}),
      ...(rerunOf ? { rerun_of: rerunOf.id } : {}),
      ...queueFields(queue),
      ...requiresOf(labels),
      ...repositoryField(repository),
    };
    create.start(body, idempotencyKey.current);
  };
  const startFresh = () => {
    setParams((next) => {
      next.delete(RERUN_PARAM);
      return next;
    });
    setRerunOf(null);
    setRequirement('');
    setTemplate('');
    setLabels('');
    edited();
  };

  return (
    <section aria-labelledby={`${id}-heading`} className="create-run">
      <h2 id={`${id}-heading`}>{rerunOf ? `Re-run #${rerunOf.number}` : 'New workflow'}</h2>
      {rerunOf && <RerunNote rerunOf={rerunOf} onStartFresh={startFresh} />}
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
        <RunOptions
          id={id}
          workerId={workerId}
          onWorkerChange={(next) => {
            setWorkerId(next);
            edited();
          }}
          template={template}
          onTemplateChange={(next) => {
            setTemplate(next);
            edited();
          }}
        />
        <QueueOptions
          choice={queue}
          onChange={(next) => {
            setQueue(next);
            edited();
          }}
        />
        <RepositoryChoice
          id={id}
          projectId={projectId}
          value={repository}
          onChange={(next) => {
            setRepository(next);
            edited();
          }}
        />
        <RequiredLabelsField
          id={id}
          value={labels}
          onChange={(next) => {
            setLabels(next);
            edited();
          }}
        />
        <ErrorNote error={create.error} />
        <div>
          {/* aria-disabled, not disabled: focus stays on the button (an error is read out next to it) */}
          <button type="submit" className="primary" aria-disabled={create.isPending || undefined}>
            {submitLabel(create.isPending, create.isPaused, rerunOf !== null)}
          </button>
          {create.isPaused && (
            <p className="hint" role="status">
              You are offline: the run starts when the connection is back.
            </p>
          )}
        </div>
      </form>
    </section>
  );
}

/** `gpu, linux` as the create request's `requires` (nothing when empty). */
function requiresOf(text: string): Pick<CreateWorkflowRequest, 'requires'> {
  const labels = text
    .split(/[\s,]+/)
    .map((label) => label.trim())
    .filter((label) => label !== '');
  return labels.length ? { requires: labels } : {};
}

/** The worker labels the run requires: only a worker with all of them takes it. */
function RequiredLabelsField({ id, value, onChange }: { id: string; value: string; onChange(next: string): void }) {
  return (
    <label>
      Worker labels
      <input
        name="requires"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        placeholder="e.g. gpu, linux"
        aria-describedby={`${id}-labels-help`}
      />
      <span id={`${id}-labels-help`} className="hint">
        Only a worker with all these labels takes the run (and the template&apos;s, if it names any).
      </span>
    </label>
  );
}

function submitLabel(pending: boolean, paused: boolean, rerun: boolean): string {
  if (paused) return 'Waiting for the connection…';
  if (pending) return 'Starting…';
  return rerun ? 'Start re-run' : 'Start workflow';
}

function RerunNote({ rerunOf, onStartFresh }: { rerunOf: Workflow; onStartFresh(): void }) {
  return (
    <p className="rerun-note" role="status">
      Starting from “{shorten(rerunOf.title || 'Untitled workflow', 80)}”: edit the requirement, then start.{' '}
      <button type="button" className="link-button" onClick={onStartFresh}>
        Start from scratch instead
      </button>
    </p>
  );
}

/**
 * Loads the workflow `?rerun=` names and hands it to `prefill` once it is loaded and in this project;
 * returns whether it is missing (not found, or in another project).
 */
function useRerunSource(rerunId: string | null, projectId: string, prefill: (run: Workflow) => void): boolean {
  const source = useQuery({
    queryKey: queryKeys.rerunSource(rerunId ?? ''),
    queryFn: () => getRun(rerunId ?? ''),
    enabled: rerunId !== null,
  });
  const prefillRef = useRef(prefill);
  prefillRef.current = prefill;
  useEffect(() => {
    const run = source.data;
    if (run && run.id === rerunId && run.project_id === projectId) prefillRef.current(run);
  }, [source.data, rerunId, projectId]);
  const elsewhere = source.data !== undefined && source.data.project_id !== projectId;
  return rerunId !== null && (source.isError || elsewhere);
}

/** Starts a run and opens its page; a second start before the first settled (a fast double click) goes nowhere. */
function useStartRun(projectId: string) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const create = useMutation({
    mutationFn: ({ body, key }: { body: CreateWorkflowRequest; key: string }) => startRun(projectId, body, key),
    onSuccess: (run) => {
      inBackground(queryClient.invalidateQueries({ queryKey: queryKeys.workflows(projectId) }));
      inBackground(navigate(`/projects/${encodeURIComponent(projectId)}/workflows/${encodeURIComponent(run.id)}`));
    },
  });
  // set at once, not on React's next render that disables the button
  const inFlight = useRef(false);
  const start = (body: CreateWorkflowRequest, key: string) => {
    if (inFlight.current) return;
    inFlight.current = true;
    create.mutate({ body, key }, { onSettled: () => (inFlight.current = false) });
  };
  // paused: offline, so react-query holds the request and sends it once back online
  return { start, isPending: create.isPending, isPaused: create.isPaused, error: create.error };
}
