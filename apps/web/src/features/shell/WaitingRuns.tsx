import { useEffect, useRef, type KeyboardEvent } from 'react';
import { Link } from 'react-router';
import { shorten } from '../../lib/format';
import { ErrorNote } from '../../components/Feedback';
import { useProjects } from '../projects/hooks';
import { turnNotificationsOff, turnNotificationsOn, useNotifyState } from './notifications';
import { runPath, useWaitingAlerts, useWaitingRefresh, useWaitingRuns, WAITING_WATCHED_PROJECTS } from './waiting';
import { inBackground } from '../../lib/background';
import { DeadlineNote } from '../workflow/QuestionChoices';
import { WaitingChoices } from './WaitingChoices';

export const WAITING_PANEL_ID = 'waiting-panel';
const WAITING_BUTTON_ID = 'waiting-button';

/** Keeps the count current (live per project, polled otherwise) and drives the title badge and notifications. */
export function WaitingAlerts() {
  const projects = useProjects();
  useWaitingAlerts();
  return (
    <>
      {projects.data?.slice(0, WAITING_WATCHED_PROJECTS).map((project) => (
        <WaitingWatch key={project.id} projectId={project.id} />
      ))}
    </>
  );
}

function WaitingWatch({ projectId }: { projectId: string }) {
  useWaitingRefresh(projectId);
  return null;
}

/** The header's count of runs waiting for the user; opens the list of them. */
export function WaitingButton({ open, onToggle }: { open: boolean; onToggle(): void }) {
  const count = useWaitingRuns().data?.count ?? 0;
  return (
    <button
      id={WAITING_BUTTON_ID}
      type="button"
      className={`waiting-button${count > 0 ? ' has-waiting' : ''}`}
      aria-expanded={open}
      aria-controls={WAITING_PANEL_ID}
      data-testid="waiting-count"
      data-count={count}
      onClick={onToggle}
    >
      <span className="waiting-number">{count}</span> waiting<span className="visually-hidden"> for you</span>
    </button>
  );
}

/** The runs waiting for the user, each linking to its page, and the notification opt-in. */
export function WaitingPanel({ onClose }: { onClose(): void }) {
  const waiting = useWaitingRuns();
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);
  const items = waiting.data?.items ?? [];
  const more = (waiting.data?.count ?? 0) - items.length;
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'Escape') return;
    onClose();
    document.getElementById(WAITING_BUTTON_ID)?.focus();
  };
  return (
    <section id={WAITING_PANEL_ID} className="waiting-panel" aria-labelledby="waiting-heading" onKeyDown={onKeyDown}>
      <h2 id="waiting-heading" ref={headingRef} tabIndex={-1}>
        Runs waiting for your answer
      </h2>
      <ErrorNote error={waiting.error} />
      {waiting.isSuccess && items.length === 0 && <p className="muted">No run is waiting for you.</p>}
      {items.length > 0 && (
        <ul className="waiting-list">
          {items.map((run) => (
            <li key={run.id}>
              <Link to={runPath(run)} onClick={onClose}>
                #{run.number} {shorten(run.title || 'Untitled workflow', 80)}
              </Link>{' '}
              <span className="muted">in {shorten(run.project_name, 40)}</span>
              {run.question && <p className="waiting-question">{shorten(run.question, 200)}</p>}
              {run.choices ? (
                <WaitingChoices run={{ ...run, choices: run.choices }} />
              ) : (
                <DeadlineNote fallback={run.default ?? null} deadline={run.deadline ?? null} />
              )}
            </li>
          ))}
        </ul>
      )}
      {more > 0 && <p className="muted">and {more} more</p>}
      <NotifyControl />
    </section>
  );
}

function NotifyControl() {
  const state = useNotifyState();
  if (state === 'unsupported') return null;
  if (state === 'blocked') {
    return <p className="muted small">Browser notifications are blocked for this site in the browser’s settings.</p>;
  }
  return state === 'on' ? (
    <p className="small">
      A browser notification tells you when a run starts waiting.{' '}
      <button type="button" className="small" onClick={turnNotificationsOff}>
        Turn off notifications
      </button>
    </p>
  ) : (
    <button type="button" className="small" onClick={() => inBackground(turnNotificationsOn())}>
      Notify me when a run needs my answer
    </button>
  );
}
