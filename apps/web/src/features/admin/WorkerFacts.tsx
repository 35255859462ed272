import { useEffect, useState } from 'react';
import type { Worker } from '@svc/protocol';
import { formatAgo, formatMoment } from './time';

/** The clock "last seen" is measured against: the last refresh, ticking each second in between. */
export function useNow(refreshedAt: number): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [refreshedAt]);
  return now;
}

/** A worker's capacity, labels, version and when it was last heard from. */
export function WorkerFacts({ worker, now }: { worker: Worker; now: number }) {
  return (
    <dl className="facts">
      <div>
        <dt>Capacity</dt>
        <dd>
          {worker.active} of {worker.capacity} busy
        </dd>
      </div>
      <div>
        <dt>Labels</dt>
        <dd>
          {worker.labels.length === 0 ? (
            <span className="muted">none</span>
          ) : (
            worker.labels.map((label) => (
              <span key={label} className="label-chip">
                {label}
              </span>
            ))
          )}
        </dd>
      </div>
      <div>
        <dt>Version</dt>
        <dd>{worker.version || <span className="muted">unknown</span>}</dd>
      </div>
      <div>
        <dt>Last seen</dt>
        <dd>
          {worker.last_seen_at ? (
            <>
              <time dateTime={worker.last_seen_at}>{formatMoment(worker.last_seen_at)}</time>{' '}
              <span className="muted">({formatAgo(worker.last_seen_at, now)})</span>
            </>
          ) : (
            'never'
          )}
        </dd>
      </div>
    </dl>
  );
}
