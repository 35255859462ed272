import { QueueDepthSchema } from '../rest/routing';
import { API, defineOperations, json } from './operation';

/** Routing runs to workers by label (issue 23): what waits in the queue, for autoscalers. */
export const ROUTING_OPERATIONS = defineOperations({
  getQueue: {
    method: 'GET',
    path: `${API}/admin/queue`,
    tag: 'workers',
    auth: 'required',
    action: 'queue.read',
    summary:
      'Queued runs by required label set (administrators): depth, oldest wait and matching online workers, for autoscalers',
    responses: { 200: json('the queue by label set', QueueDepthSchema) },
  },
});
