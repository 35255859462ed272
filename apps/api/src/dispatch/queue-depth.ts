import type { Db } from '@svc/db';
import type { QueueDepth, QueueGroup } from '@svc/protocol';
import { queuedWhere } from './queue';
import { decodeRequires, labelsOf, satisfies } from '../domain/routing';

/**
 * `GET /admin/queue`: the queued runs by required label set, deepest first, with the oldest wait and
 * how many online workers could take them (an autoscaler starts workers for a set with depth and none).
 */
export async function queueDepth(db: Db, now = new Date()): Promise<QueueDepth> {
  const [groups, workers] = await Promise.all([
    db.workflow.groupBy({
      by: ['requires'],
      where: queuedWhere,
      _count: { _all: true },
      _min: { created_at: true },
    }),
    db.worker.findMany({ where: { status: 'online' }, select: { labels: true } }),
  ]);
  const online = workers.map((w) => labelsOf(w.labels));
  const presented = groups.map((group): QueueGroup => {
    const requires = decodeRequires(group.requires);
    const oldest = group._min.created_at ?? now;
    return {
      requires,
      depth: group._count._all,
      oldest_wait_seconds: Math.max(0, Math.floor((now.getTime() - oldest.getTime()) / 1000)),
      matching_online_workers: online.filter((labels) => satisfies(labels, requires)).length,
    };
  });
  presented.sort((a, b) => b.depth - a.depth || a.requires.join(',').localeCompare(b.requires.join(',')));
  return {
    groups: presented,
    total: presented.reduce((sum, g) => sum + g.depth, 0),
    online_workers: online.length,
  };
}
