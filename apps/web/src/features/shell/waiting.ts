import { useEffect, useRef } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { hasProjectChange, PROJECT_ACCESS_CHANGES, type BrowserEvent } from '@svc/protocol';
import { setTitleBadge } from '../../lib/document-title';
import { shorten } from '../../lib/format';
import { useProjectEvents } from '../../lib/live';
import { queryKeys } from '../../lib/query-keys';
import { getWaiting } from '../workflows/api';
import type { WaitingRun } from '../workflows/wire';
import { notify } from './notifications';

/** Project events catch most changes at once; polling catches the rest (projects past the cap, missed events). */
export const WAITING_POLL_MS = 30_000;
/** Projects watched live for the count; each is one subscription on the socket, which the server limits. */
export const WAITING_WATCHED_PROJECTS = 50;

export const runPath = (run: { project_id: string; id: string }) =>
  `/projects/${encodeURIComponent(run.project_id)}/workflows/${encodeURIComponent(run.id)}`;

export function useWaitingRuns() {
  return useQuery({
    queryKey: queryKeys.waiting,
    queryFn: getWaiting,
    refetchInterval: WAITING_POLL_MS,
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
    if (affectsWaiting(event)) void queryClient.invalidateQueries({ queryKey: queryKeys.waiting });
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
        notify(notificationTitle(run), notificationBody(run), `svc-waiting-${run.id}`, () => navigate(runPath(run)));
      }
    }
    seen.current = new Set(items.map((run) => run.id));
  }, [waiting.data, navigate]);
}

export const notificationTitle = (run: WaitingRun) => `Run #${run.number} needs your answer`;
export const notificationBody = (run: WaitingRun) =>
  shorten(`${run.project_name}: ${run.question ?? run.title ?? ''}`, 180);
