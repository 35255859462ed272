import { createPortal } from 'react-dom';
import { POLL_INTERVAL_MS, useConnectionState, useLiveControls } from '../lib/live';
import type { ConnectionState } from '../lib/ws';
import './ConnectionBanner.css';

const LABELS: Record<ConnectionState, string> = {
  open: 'Live',
  connecting: 'Connecting…',
  reconnecting: 'Reconnecting…',
  refused: 'Polling',
  closed: 'Offline',
};

const seconds = Math.round(POLL_INTERVAL_MS / 1000);

/**
 * The header's live indicator, and while live updates are interrupted or refused a banner (at the
 * bottom of the window, over any page) that says so, says the page keeps reloading, and offers a retry.
 */
export function ConnectionStatus() {
  const state = useConnectionState();
  return (
    <>
      <span className={`live live-${state}`} role="status" title="Live updates">
        <span aria-hidden="true" className="dot" /> {LABELS[state]}
      </span>
      <ConnectionBanner state={state} />
    </>
  );
}

function ConnectionBanner({ state }: { state: ConnectionState }) {
  const controls = useLiveControls();
  if (!controls?.interrupted) return null;
  const refused = state === 'refused';
  const message = refused
    ? `The server refused live updates for this address. The page reloads every ${seconds} seconds instead; open svc at its public address (or have it added to ALLOWED_ORIGINS) for live updates.`
    : state === 'connecting'
      ? 'Retrying the live connection…'
      : `Live updates were interrupted. Reconnecting; the page reloads every ${seconds} seconds meanwhile.`;
  return createPortal(
    <section
      aria-label="Live updates"
      className={`connection-banner connection-banner-${refused ? 'refused' : 'retrying'}`}
    >
      <div role={refused ? 'alert' : 'status'} className="connection-banner-text" data-testid="connection-banner">
        {message}
      </div>
      <button type="button" onClick={controls.retryNow}>
        Retry now
      </button>
    </section>,
    document.body,
  );
}
