import { useEffect } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { TimerListSchema, type Timer, type Worker, type Workflow } from '@svc/protocol';
import { apiJson } from '../../lib/api';
import { useLiveSocket } from '../../lib/live';
import { queryKeys } from '../../lib/query-keys';
import { listWorkers } from '../workflows/api';
import { runKeys } from './keys';

/** Statuses in which the run's worker is working on it (an offline one leaves it stalled). */
const WORKED_ON = new Set<Workflow['status']>(['planning', 'running', 'waiting_user']);

/**
 * The pending timer a run that went back to `pending` waits for (the agent's `set_timer`), or null:
 * a run waiting for its time is not waiting for a worker.
 */
export function usePendingTimer(workflow: Workflow): Timer | null {
  const waiting = workflow.status === 'pending' && workflow.started_at !== null;
  const timers = useQuery({
    queryKey: runKeys.timers(workflow.id, workflow.status),
    queryFn: () => apiJson(`/workflows/${encodeURIComponent(workflow.id)}/timers`, TimerListSchema),
    enabled: waiting,
  });
  if (!waiting) return null;
  return timers.data?.find((timer) => timer.status === 'pending') ?? null;
}

/**
 * The run's worker when it is offline while it should be working on the run, else null: GET /workers,
 * kept current by the `worker_status` events every signed-in socket receives.
 */
export function useOfflineWorker(workflow: Workflow): Worker | null {
  const queryClient = useQueryClient();
  const socket = useLiveSocket();
  const watched = WORKED_ON.has(workflow.status) && workflow.worker_id !== null;
  const workers = useQuery({ queryKey: queryKeys.workers, queryFn: listWorkers, enabled: watched });
  useEffect(() => {
    if (!socket) return;
    return socket.onWorkerStatus(({ data }) =>
      queryClient.setQueryData<Worker[]>(queryKeys.workers, (list) =>
        list?.some((w) => w.id === data.id) ? list.map((w) => (w.id === data.id ? { ...w, ...data } : w)) : list,
      ),
    );
  }, [socket, queryClient]);
  if (!watched) return null;
  const worker = workers.data?.find((w) => w.id === workflow.worker_id);
  return worker?.status === 'offline' ? worker : null;
}
