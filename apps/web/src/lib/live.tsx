import { createContext, useContext, useEffect, useRef, useState, useSyncExternalStore, type ReactNode } from 'react';
import { onlineManager, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { BrowserEvent } from '@svc/protocol';
import { browserSocketUrl, LiveSocket, type ConnectionState } from './ws';
import { inBackground } from './background';

/** How often the page reloads what it shows while live updates are not coming in. */
export const POLL_INTERVAL_MS = 5000;

/** Whether the server answers plain HTTP (the health check needs no session). */
const serverAnswers = () =>
  fetch('/svc/api/health', { cache: 'no-store' }).then(
    (res) => res.ok,
    () => false,
  );

const LiveContext = createContext<LiveSocket | null>(null);

/** Holds the app's one live socket while someone is signed in. */
export function LiveProvider({ enabled, children }: { enabled: boolean; children: ReactNode }) {
  const [socket, setSocket] = useState<LiveSocket | null>(null);
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!enabled) return;
    const live = new LiveSocket({
      url: browserSocketUrl(window.location),
      onServerError: (error) => console.warn(`svc: live updates refused: ${error.code}: ${error.message}`),
      probe: serverAnswers,
    });
    setSocket(live);
    const stopCatchingUp = catchUpAfterOutages(live, queryClient);
    // Back online: reconnect now rather than at the end of the back-off.
    const stopOnline = onlineManager.subscribe((online) => online && live.retryNow());
    return () => {
      stopCatchingUp();
      stopOnline();
      live.close();
      setSocket(null);
    };
  }, [enabled, queryClient]);
  return (
    <LiveContext.Provider value={socket}>
      <FallbackPolling />
      {children}
    </LiveContext.Provider>
  );
}

/**
 * When the socket opens again after a drop, everything the page shows is reloaded (the session check
 * among it): what changed meanwhile shows without a page reload, also where no event is replayed.
 */
function catchUpAfterOutages(live: LiveSocket, queryClient: QueryClient): () => void {
  let dropped = false;
  return live.onStateChange((state) => {
    if (state === 'reconnecting' || state === 'refused') dropped = true;
    else if (state === 'open' && dropped) {
      dropped = false;
      inBackground(queryClient.invalidateQueries({ refetchType: 'active' }));
    }
  });
}

/** Whether the browser says it is online (its online/offline events, as react-query follows them). */
export function useOnline(): boolean {
  return useSyncExternalStore(
    (notify) => onlineManager.subscribe(notify),
    () => onlineManager.isOnline(),
  );
}

/**
 * While live updates are interrupted or refused, every query the page shows is reloaded every
 * POLL_INTERVAL_MS, so the page keeps working (slower) without the socket. Queries that want their
 * own cadence use `usePollInterval`.
 */
function FallbackPolling() {
  const state = useConnectionState();
  const queryClient = useQueryClient();
  const polling = state === 'reconnecting' || state === 'refused';
  useEffect(() => {
    if (!polling) return;
    // Only while the server answers: polling a server that is down only piles up failed requests.
    const poll = async () => {
      if (await serverAnswers()) await queryClient.invalidateQueries({ refetchType: 'active' });
    };
    const timer = setInterval(() => inBackground(poll()), POLL_INTERVAL_MS);
    return () => clearInterval(timer);
  }, [polling, queryClient]);
  return null;
}

/**
 * A react-query `refetchInterval`: false while live updates arrive, `ms` otherwise (connecting,
 * reconnecting, refused), so a query keeps its data fresh by polling when the socket cannot.
 * `useQuery({ queryKey, queryFn, refetchInterval: usePollInterval(3000) })`.
 */
export function usePollInterval(ms: number = POLL_INTERVAL_MS): number | false {
  return useConnectionState() === 'open' ? false : ms;
}

/** The socket's "Retry now" and whether it failed since it was last open (null before sign-in). */
export function useLiveControls(): { retryNow(): void; interrupted: boolean } | null {
  const socket = useContext(LiveContext);
  useConnectionState(); // re-render on every change of state
  return socket ? { retryNow: () => socket.retryNow(), interrupted: socket.interrupted } : null;
}

export function useConnectionState(): ConnectionState {
  const socket = useContext(LiveContext);
  return useSyncExternalStore(
    (notify) => socket?.onStateChange(notify) ?? (() => undefined),
    () => socket?.state ?? 'connecting',
  );
}

export interface WorkflowHandlers {
  onEvent(event: BrowserEvent): void;
  onSubscribed?(lastSeq: number): void;
}

/** Follows one workflow while the component is mounted; handlers may change on every render. */
export function useWorkflowEvents(workflowId: string, handlers: WorkflowHandlers): void {
  const socket = useContext(LiveContext);
  const latest = useRef(handlers);
  latest.current = handlers;
  useEffect(() => {
    if (!socket) return;
    return socket.subscribeWorkflow(workflowId, {
      onEvent: (event) => latest.current.onEvent(event),
      onSubscribed: (lastSeq) => latest.current.onSubscribed?.(lastSeq),
    });
  }, [socket, workflowId]);
}

/**
 * Follows a project's changes. `onChange` also runs each time the socket (re)opens, since project
 * events are not replayed: whatever happened while disconnected is picked up by reloading.
 */
export function useProjectEvents(projectId: string | undefined, onChange: (event: BrowserEvent | null) => void): void {
  const socket = useContext(LiveContext);
  const latest = useRef(onChange);
  latest.current = onChange;
  useEffect(() => {
    if (!socket || !projectId) return;
    const stopEvents = socket.subscribeProject(projectId, (event) => latest.current(event));
    const stopState = socket.onStateChange((state) => {
      if (state === 'open') latest.current(null);
    });
    return () => {
      stopEvents();
      stopState();
    };
  }, [socket, projectId]);
}

/** The app's live socket (null while signed out), for hooks that follow something of their own. */
export function useLiveSocket(): LiveSocket | null {
  return useContext(LiveContext);
}
