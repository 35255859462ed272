import type { Request, Response } from 'express';
import type { AppDeps } from '../../deps';
import type { Handlers } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { authorizeGlobal } from '../../policies/access';
import { notFound } from '../../domain/errors';
import { presentWorkerById } from '../../dispatch/worker-list';

type Change = 'pause' | 'drain' | 'resume';

/**
 * `POST /admin/workers/{id}/pause|drain|resume` (decision 0074): the state is a column of the worker, so
 * it holds across restarts and every replica's dispatcher reads it on its next round.
 */
export function workerAdminHandlers(deps: AppDeps): Handlers<'pauseWorker' | 'drainWorker' | 'resumeWorker'> {
  const { db } = deps;
  const change = async (req: Request, res: Response, id: string, what: Change) => {
    authorizeGlobal(principalOf(req), 'workers.manage');
    const worker = await db.worker.findUnique({ where: { id }, select: { paused_at: true } });
    if (!worker) throw notFound('worker not found');
    // A second pause or a drain keeps the first pause's time.
    const pausedAt = worker.paused_at ?? new Date();
    const data =
      what === 'resume' ? { paused_at: null, draining: false } : { paused_at: pausedAt, draining: what === 'drain' };
    await db.worker.update({ where: { id }, data });
    if (what === 'resume') await deps.workflows.queueMayMove(id);
    res.json(await presentWorkerById(db, id));
  };
  return {
    pauseWorker: (req, res, input) => change(req, res, input.params.id, 'pause'),
    drainWorker: (req, res, input) => change(req, res, input.params.id, 'drain'),
    resumeWorker: (req, res, input) => change(req, res, input.params.id, 'resume'),
  };
}
