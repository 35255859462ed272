import type { Db } from '@svc/db';
import { DomainError } from '../domain/errors';

const WINDOW_MS = 60_000;

/**
 * Counts one delivery against the trigger's per-minute limit, in a fixed one-minute window kept on the
 * trigger's row, so every replica counts in one place. Each step is one conditional update, so
 * concurrent deliveries never count past the limit; 429 with Retry-After (seconds to the next window).
 */
export async function countDelivery(db: Db, trigger: { id: string; rate_limit_per_minute: number }, now = Date.now()) {
  const windowStart = new Date(Math.floor(now / WINDOW_MS) * WINDOW_MS);
  // Twice: a delivery that loses the race to open the new window counts in it on the second pass.
  for (let pass = 0; pass < 2; pass++) {
    const counted = await db.trigger.updateMany({
      where: { id: trigger.id, window_started_at: windowStart, window_count: { lt: trigger.rate_limit_per_minute } },
      data: { window_count: { increment: 1 } },
    });
    if (counted.count === 1) return;
    const opened = await db.trigger.updateMany({
      where: { id: trigger.id, window_started_at: { lt: windowStart } },
      data: { window_started_at: windowStart, window_count: 1 },
    });
    if (opened.count === 1) return;
  }
  const retryAfter = Math.max(1, Math.ceil((windowStart.getTime() + WINDOW_MS - now) / 1000));
  throw new DomainError(
    'rate_limited',
    `this trigger accepts at most ${trigger.rate_limit_per_minute} deliveries a minute`,
    { 'Retry-After': String(retryAfter) },
  );
}
