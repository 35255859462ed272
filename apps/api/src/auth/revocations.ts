import type { Db } from '@svc/db';

/** Overlap when reading newer revocations, so clock skew between replicas cannot skip one. */
const WATERMARK_OVERLAP_MS = 5_000;

/**
 * The revoked token ids, kept in memory and re-read from the database at most every `maxAgeMs`.
 * A revocation is effective at once on the replica that made it, on the others as soon as the cluster
 * bus brings it (TokenService), and within `maxAgeMs` even if that message was lost; a request no
 * longer pays a database round trip to learn that its token is still valid.
 */
export class RevocationCache {
  private readonly expiresAtByJti = new Map<string, number>();
  private syncedAt = Number.NEGATIVE_INFINITY;
  private watermark = new Date(0);
  private syncing: Promise<void> | null = null;
  private readonly listeners = new Set<(jti: string) => void>();

  constructor(
    private readonly db: Db,
    private readonly maxAgeMs = 2_000,
    private readonly now: () => number = Date.now,
  ) {}

  async isRevoked(jti: string): Promise<boolean> {
    const fresh = this.revokedIfFresh(jti);
    if (fresh !== undefined) return fresh;
    await this.sync();
    return this.expiresAtByJti.has(jti);
  }

  /** Whether a token id is revoked, answered at once while the list is fresh; undefined when it is due a re-read. */
  revokedIfFresh(jti: string): boolean | undefined {
    return this.now() - this.syncedAt > this.maxAgeMs ? undefined : this.expiresAtByJti.has(jti);
  }

  remember(jti: string, expiresAt: Date): void {
    const known = this.expiresAtByJti.has(jti);
    this.expiresAtByJti.set(jti, expiresAt.getTime());
    if (!known) for (const listener of this.listeners) listener(jti);
  }

  /** Reads newer revocations now (after any read already under way, which may predate them). */
  async refresh(): Promise<void> {
    await this.syncing?.catch(() => undefined);
    await this.sync();
  }

  /** Tells `listener` about every revocation this cache learns of (made here, or read from the database). */
  onRevoked(listener: (jti: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private sync(): Promise<void> {
    // One query at a time however many requests are waiting for it.
    this.syncing ??= this.load().finally(() => {
      this.syncing = null;
    });
    return this.syncing;
  }

  private async load(): Promise<void> {
    const startedAt = this.now();
    const since = new Date(this.watermark.getTime() - WATERMARK_OVERLAP_MS);
    const rows = await this.db.revokedToken.findMany({
      where: { revoked_at: { gte: since }, expires_at: { gt: new Date(startedAt) } },
      select: { jti: true, expires_at: true, revoked_at: true },
    });
    for (const row of rows) {
      this.remember(row.jti, row.expires_at);
      if (row.revoked_at > this.watermark) this.watermark = row.revoked_at;
    }
    for (const [jti, expiresAt] of this.expiresAtByJti) if (expiresAt <= startedAt) this.expiresAtByJti.delete(jti);
    this.syncedAt = startedAt;
  }
}
