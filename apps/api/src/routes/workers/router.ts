import type { WorkerListItem } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import type { OperationHandler, Handlers } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { authorizeGlobal } from '../../policies/access';
import { listWorkers as registeredWorkers } from '../../dispatch/worker-list';
import { currentRunsByWorker } from './current-runs';
import { workerRunsPage } from './recent-runs';

/**
 * `GET /workers`: every registered worker with its capacity, what it holds now and whether it is
 * online, and the runs it holds that the caller may see (`active` counts them all); `GET
 * /workers/{id}/runs`: the runs it last took (decision 0078).
 */
export function workerHandlers(deps: AppDeps): Handlers<'listWorkers' | 'listWorkerRuns'> {
  const listWorkers: OperationHandler<'listWorkers'> = async (req, res) => {
    const principal = principalOf(req);
    authorizeGlobal(principal, 'workers.read');
    const [workers, runs] = await Promise.all([registeredWorkers(deps.db), currentRunsByWorker(deps.db, principal)]);
    res.json(workers.map((worker): WorkerListItem => ({ ...worker, current_runs: runs.get(worker.id) ?? [] })));
  };
  const listWorkerRuns: OperationHandler<'listWorkerRuns'> = async (req, res, input) => {
    const principal = principalOf(req);
    authorizeGlobal(principal, 'workers.read');
    res.json(await workerRunsPage(deps.db, principal, input.params.id, req.query));
  };
  return { listWorkers, listWorkerRuns };
}
