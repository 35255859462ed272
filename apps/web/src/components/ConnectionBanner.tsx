import { createPortal } from 'react-dom';
import { useMutationState } from '@tanstack/react-query';
import { POLL_INTERVAL_MS, useConnectionState, useLiveControls, useOnline } from '../lib/live';
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
 * The header's live indicator, and while live updates are interrupted or refused, or the browser is
 * offline, a banner (at the bottom of the window, over any page) that says so and what the page does
 * meanwhile. The page itself stays: it catches up when the connection is back (decision 0070).
 */
export function ConnectionStatus() {
  const state = useConnectionState();
  const online = useOnline();
  const shown = online ? state : 'offline';
  return (
    <>
      <span className={`live live-${shown}`} role="status" title="Live updates" data-connection={shown}>
        <span aria-hidden="true" className="dot" /> {online ? LABELS[state] : 'Offline'}
      </span>
      {online ? <ConnectionBanner state={state} /> : <OfflineBanner />}
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
      ? 'Reconnecting… retrying the live connection now.'
      : 'Reconnecting… Live updates were interrupted. The page stays as it is and catches up when the server answers again.';
  return (
    <Banner tone={refused ? 'refused' : 'retrying'} alert={refused} message={message}>
      <button type="button" onClick={controls.retryNow}>
        Retry now
      </button>
    </Banner>
  );
}

/** Offline: react-query holds what the person sends (paused mutations) and sends it once back online. */
function OfflineBanner() {
  const waiting = useMutationState({ filters: { predicate: (mutation) => mutation.state.isPaused } }).length;
  const queued =
    waiting === 0
      ? 'Anything you send waits and goes out when the connection is back.'
      : `${waiting === 1 ? '1 action waits' : `${waiting} actions wait`} to be sent when the connection is back.`;
  return <Banner tone="offline" alert message={`You are offline: live updates stopped. ${queued}`} />;
}

function Banner({
  tone,
  alert,
  message,
  children,
}: {
  tone: string;
  alert: boolean;
  message: string;
  children?: React.ReactNode;
}) {
  return createPortal(
    <section aria-label="Live updates" className={`connection-banner connection-banner-${tone}`}>
      <div role={alert ? 'alert' : 'status'} className="connection-banner-text" data-testid="connection-banner">
        {message}
      </div>
      {children}
    </section>,
    document.body,
  );
}
