import type { AppDeps } from '../../deps';
import type { Handlers, OperationHandler } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { authorizeGlobal } from '../../policies/access';
import { queueDepth } from '../../dispatch/queue-depth';

/** `GET /admin/queue`: the queue by label set, for administrators and their autoscalers (issue 23). */
export function queueHandlers(deps: AppDeps): Handlers<'getQueue'> {
  const getQueue: OperationHandler<'getQueue'> = async (req, res) => {
    authorizeGlobal(principalOf(req), 'queue.read');
    res.json(await queueDepth(deps.db));
  };
  return { getQueue };
}
