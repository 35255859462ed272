import { useRef, type RefObject } from 'react';
import { Link } from 'react-router';
import { TERMINAL_WORKFLOW_STATUSES, type Workflow } from '@svc/protocol';
import { StatusBadge } from '../../components/StatusBadge';
import { formatNumber } from '../../lib/format';
import { WorkflowActions } from '../workflow/WorkflowActions';
import { PauseControls } from '../pause/PauseControls';
import type { Usage } from './useUsage';
import { Cost } from './RunCost';
import { elapsedMs, formatClock, formatElapsed } from './time';
import { useNow } from '../../lib/use-now';
import { useCopy } from '../../lib/use-copy';
import { POLL_MS } from './poll';
import { PullRequestLink } from '../forge/PullRequestLink';
import { useRunWait } from './RunWaits';

interface Props {
  workflow: Workflow;
  progress: string;
  following: boolean;
  usage: Usage;
  titleRef: RefObject<HTMLHeadingElement | null>;
}

/** Title, run number, status and where the run is; its times, worker, tokens and cost; its actions. */
export function RunHeader({ workflow, progress, following, usage, titleRef }: Props) {
  const wait = useRunWait(workflow);
  return (
    <header className="run-head">
      <div className="run-title-line">
        <h1 id="workflow-title" ref={titleRef} tabIndex={-1}>
          {workflow.number > 0 && <span className="run-number">#{workflow.number}</span>}{' '}
          {workflow.title || 'Untitled workflow'}
        </h1>
        <StatusBadge status={workflow.status} />
        <span className={`following${following ? ' on' : ''}`} role="status" data-following={following}>
          {following ? 'Updating live' : `Live updates paused: reloading every ${POLL_MS / 1000} s`}
        </span>
      </div>
      <p className="run-progress" data-testid="run-progress" aria-live="polite">
        {wait.progress ?? progress}
      </p>
      {wait.note}
      <RunFacts workflow={workflow} usage={usage} />
      <PullRequestLink workflowId={workflow.id} showBranch />
      <div className="run-actions">
        <PauseControls workflow={workflow} />
        <WorkflowActions workflow={workflow} />
        <Link
          className="button"
          to={`/projects/${encodeURIComponent(workflow.project_id)}?rerun=${encodeURIComponent(workflow.id)}`}
        >
          Re-run
        </Link>
      </div>
    </header>
  );
}

/**
 * The run's OpenTelemetry trace id (decision 0052), to look the run up in Jaeger, Tempo or the like:
 * selectable text (one click selects it all) and a Copy button.
 */
function TraceId({ traceId }: { traceId: string }) {
  const text = useRef<HTMLElement>(null);
  const { copied, copy } = useCopy(traceId, () => {
    const range = document.createRange();
    if (text.current) range.selectNodeContents(text.current);
    window.getSelection()?.removeAllRanges();
    window.getSelection()?.addRange(range);
  });
  return (
    <span className="run-trace">
      <code ref={text} className="run-trace-id" data-testid="trace-id">
        {traceId}
      </code>{' '}
      <button type="button" className="link-button" onClick={() => void copy()} aria-label="Copy the trace id">
        Copy
      </button>
      <span role="status" className="visually-hidden">
        {copied === 'yes' ? 'Trace id copied' : copied === 'failed' ? 'Trace id selected: press Ctrl+C to copy' : ''}
      </span>
    </span>
  );
}

/** The run's duration (ticking while it runs), times, worker, tokens and estimated cost. */
function RunFacts({ workflow, usage }: { workflow: Workflow; usage: Usage }) {
  const finished = TERMINAL_WORKFLOW_STATUSES.includes(workflow.status);
  const ticking = workflow.started_at !== null && !finished;
  const now = useNow(ticking);
  const duration = elapsedMs(workflow.started_at, workflow.finished_at, now);
  return (
    <dl className="run-facts">
      <Fact name="Duration" id="duration">
        {duration === null ? 'not started' : formatElapsed(duration)}
      </Fact>
      <Fact name="Started" id="started">
        <Clock iso={workflow.started_at} />
      </Fact>
      <Fact name="Finished" id="finished">
        <Clock iso={workflow.finished_at} />
      </Fact>
      <Fact name="Worker" id="worker">
        {workflow.worker_name ?? '—'}
      </Fact>
      <Fact name="Tokens" id="tokens">
        {usage.totals
          ? `${formatNumber(usage.totals.prompt_tokens)} prompt · ${formatNumber(usage.totals.completion_tokens)} completion`
          : '—'}
      </Fact>
      <Fact name="Estimated cost" id="cost">
        <Cost usage={usage} />
      </Fact>
      {workflow.trace_id && (
        <Fact name="Trace" id="trace">
          <TraceId traceId={workflow.trace_id} />
        </Fact>
      )}
    </dl>
  );
}

function Fact({ name, id, children }: { name: string; id: string; children: React.ReactNode }) {
  return (
    <div className="run-fact">
      <dt>{name}</dt>
      <dd data-fact={id}>{children}</dd>
    </div>
  );
}

/** A time of day, or "—" for a time not reached yet. */
function Clock({ iso }: { iso: string | null }) {
  return iso ? <time dateTime={iso}>{formatClock(iso)}</time> : <>—</>;
}
