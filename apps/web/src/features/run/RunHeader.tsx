import type { RefObject } from 'react';
import { Link } from 'react-router';
import { TERMINAL_WORKFLOW_STATUSES, type Workflow } from '@svc/protocol';
import { StatusBadge } from '../../components/StatusBadge';
import { formatNumber } from '../../lib/format';
import { WorkflowActions } from '../workflow/WorkflowActions';
import type { Usage } from './useUsage';
import { formatUsd } from './cost';
import { elapsedMs, formatClock, formatElapsed } from './time';
import { useNow } from '../../lib/use-now';
import { POLL_MS } from './poll';

interface Props {
  workflow: Workflow;
  progress: string;
  following: boolean;
  usage: Usage;
  titleRef: RefObject<HTMLHeadingElement | null>;
}

/** Title, run number, status and where the run is; its times, worker, tokens and cost; its actions. */
export function RunHeader({ workflow, progress, following, usage, titleRef }: Props) {
  const finished = TERMINAL_WORKFLOW_STATUSES.includes(workflow.status);
  const ticking = workflow.started_at !== null && !finished;
  const now = useNow(ticking);
  const duration = elapsedMs(workflow.started_at, workflow.finished_at, now);
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
        {progress}
      </p>
      <dl className="run-facts">
        <Fact name="Duration" id="duration">
          {duration === null ? 'not started' : formatElapsed(duration)}
        </Fact>
        <Fact name="Started" id="started">
          {workflow.started_at ? <time dateTime={workflow.started_at}>{formatClock(workflow.started_at)}</time> : '—'}
        </Fact>
        <Fact name="Finished" id="finished">
          {workflow.finished_at ? (
            <time dateTime={workflow.finished_at}>{formatClock(workflow.finished_at)}</time>
          ) : (
            '—'
          )}
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
      </dl>
      <div className="run-actions">
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

function Fact({ name, id, children }: { name: string; id: string; children: React.ReactNode }) {
  return (
    <div className="run-fact">
      <dt>{name}</dt>
      <dd data-fact={id}>{children}</dd>
    </div>
  );
}

function Cost({ usage }: { usage: Usage }) {
  const { prices, cost } = usage;
  if (prices === null || usage.totals === null) return <>—</>;
  if (prices.kind !== 'prices')
    return (
      <>
        {prices.kind === 'unset' ? 'no prices set' : `prices unreadable: ${prices.problem}`} (
        <Link to="/settings">set them in Settings</Link>)
      </>
    );
  if (!cost) return <>—</>;
  const notes = [
    cost.partial ? 'first calls only' : null,
    cost.unpriced.length > 0 ? `no price for ${cost.unpriced.join(', ')}` : null,
  ].filter((n) => n !== null);
  return (
    <>
      {cost.usd === 0 && cost.unpriced.length > 0 ? '—' : `≈ ${formatUsd(cost.usd)}`}
      {notes.length > 0 && <span className="muted"> ({notes.join('; ')})</span>}
    </>
  );
}
