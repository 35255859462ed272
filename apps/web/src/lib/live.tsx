import { createContext, useContext, useEffect, useRef, useState, useSyncExternalStore, type ReactNode } from 'react';
import type { BrowserEvent } from '@svc/protocol';
import { browserSocketUrl, LiveSocket, type ConnectionState } from './ws';

const LiveContext = createContext<LiveSocket | null>(null);

/** Holds the app's one live socket while someone is signed in. */
export function LiveProvider({ enabled, children }: { enabled: boolean; children: ReactNode }) {
  const [socket, setSocket] = useState<LiveSocket | null>(null);
  useEffect(() => {
    if (!enabled) return;
    const live = new LiveSocket({
      url: browserSocketUrl(window.location),
      onServerError: (error) => console.warn(`svc: live updates refused: ${error.code}: ${error.message}`),
    });
    setSocket(live);
    return () => {
      live.close();
      setSocket(null);
    };
  }, [enabled]);
  return <LiveContext.Provider value={socket}>{children}</LiveContext.Provider>;
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
