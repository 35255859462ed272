import { useEffect, useRef } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { hasProjectChange, PROJECT_ACCESS_CHANGES, type BrowserEvent, type WaitingWorkflow } from '@svc/protocol';
import { setTitleBadge } from '../../lib/document-title';
import { shorten } from '../../lib/format';
import { usePollInterval, useProjectEvents } from '../../lib/live';
import { queryKeys } from '../../lib/query-keys';
import { useProjects } from '../projects/hooks';
import { getWaiting } from '../workflows/api';
import { notify } from './notifications';
import { inBackground } from '../../lib/background';

/** While the socket is closed, and for projects past WAITING_WATCHED_PROJECTS, the count is polled this often. */
export const WAITING_POLL_MS = 30_000;
/** Projects watched live for the count; each is one subscription on the socket, which the server limits. */
export const WAITING_WATCHED_PROJECTS = 50;

export const runPath = (run: { project_id: string; id: string }) =>
  `/projects/${encodeURIComponent(run.project_id)}/workflows/${encodeURIComponent(run.id)}`;

/** The runs waiting for the user: refetched on the watched projects' events while the socket is open, else polled. */
export function useWaitingRuns() {
  const poll = usePollInterval(WAITING_POLL_MS);
  const unwatched = (useProjects().data?.length ?? 0) > WAITING_WATCHED_PROJECTS;
  return useQuery({
    queryKey: queryKeys.waiting,
    queryFn: getWaiting,
    refetchInterval: unwatched ? WAITING_POLL_MS : poll,
    refetchIntervalInBackground: true,
  });
}

/** Whether a project event may change who waits on the user: a status change, a deletion, a membership change. */
export const affectsWaiting = (event: BrowserEvent | null): boolean =>
  !event || event.type === 'workflow_status' || hasProjectChange(event, PROJECT_ACCESS_CHANGES);

/** Refetches the waiting runs when one of the project's workflows changes status. */
export function useWaitingRefresh(projectId: string): void {
  const queryClient = useQueryClient();
  useProjectEvents(projectId, (event) => {
    if (affectsWaiting(event)) inBackground(queryClient.invalidateQueries({ queryKey: queryKeys.waiting }));
  });
}

/** The tab title's "(n)" and, when the user opted in, a browser notification for each run that starts waiting. */
export function useWaitingAlerts(): void {
  const waiting = useWaitingRuns();
  const navigate = useNavigate();
  const seen = useRef<Set<string> | null>(null);
  const count = waiting.data?.count ?? 0;

  useEffect(() => setTitleBadge(count), [count]);
  useEffect(() => () => setTitleBadge(0), []);

  useEffect(() => {
    const items = waiting.data?.items;
    if (!items) return;
    // The first answer only sets what was already waiting: notify about what starts waiting later.
    if (seen.current) {
      for (const run of items) {
        if (seen.current.has(run.id) || window.location.pathname === runPath(run)) continue;
        notify(notificationTitle(run), notificationBody(run), `svc-waiting-${run.id}`, () =>
          inBackground(navigate(runPath(run))),
        );
      }
    }
    seen.current = new Set(items.map((run) => run.id));
  }, [waiting.data, navigate]);
}

export const notificationTitle = (run: WaitingWorkflow) => `Run #${run.number} needs your answer`;
export const notificationBody = (run: WaitingWorkflow) =>
  shorten(`${run.project_name}: ${run.question ?? run.title ?? ''}`, 180);
