import type { Logger } from 'pino';
import type { Db } from '@svc/db';

/** The setting that says how long LLM call details (messages and replies) are kept. */
export const LLM_DETAIL_RETENTION_KEY = 'llm_detail_retention_days';
export const DEFAULT_LLM_DETAIL_RETENTION_DAYS = 30;
/** How often every replica prunes old details (each DELETE is idempotent, so replicas may overlap). */
export const DETAIL_SWEEP_INTERVAL_MS = 60 * 60 * 1000;

const DAY_MS = 24 * 3600 * 1000;

/** Days to keep details; 0 keeps none. A value that is not a non-negative number means the default. */
export function retentionDays(raw: string | undefined | null): number {
  if (raw === undefined || raw === null || raw.trim() === '') return DEFAULT_LLM_DETAIL_RETENTION_DAYS;
  const days = Number(raw.trim().replace(/^"(.*)"$/, '$1'));
  return Number.isFinite(days) && days >= 0 ? days : DEFAULT_LLM_DETAIL_RETENTION_DAYS;
}

/**
 * Prunes LLM call details older than `llm_detail_retention_days` (all of them at 0) on a timer; the
 * ingest also stores none while it is 0. The call rows stay: only their messages and replies go.
 */
export class LlmDetailRetention {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly intervalMs = DETAIL_SWEEP_INTERVAL_MS,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sweep().catch(() => undefined), this.intervalMs);
    this.timer.unref();
    void this.sweep().catch(() => undefined);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /** Deletes what is past the retention now; resolves with how many details went. */
  sweep(now = new Date()): Promise<number> {
    this.running ??= this.prune(now).finally(() => (this.running = null));
    return this.running;
  }

  private async prune(now: Date): Promise<number> {
    try {
      const count = await pruneLlmDetails(this.db, now);
      if (count > 0) this.logger.info({ count }, 'pruned LLM call details');
      return count;
    } catch (err) {
      this.logger.warn({ err }, 'pruning LLM call details failed');
      throw err;
    }
  }
}

/**
 * Deletes the details the stored retention no longer allows (all of them at 0); resolves with how many
 * went. The sweep runs it hourly, and `PUT /settings/llm_detail_retention_days` before it answers.
 */
export async function pruneLlmDetails(db: Db, now = new Date()): Promise<number> {
  const row = await db.setting.findUnique({ where: { key: LLM_DETAIL_RETENTION_KEY } });
  const days = retentionDays(row?.value);
  const cutoff = new Date(now.getTime() - days * DAY_MS);
  const { count } = await db.llmCallDetail.deleteMany({ where: days === 0 ? {} : { created_at: { lt: cutoff } } });
  return count;
}
