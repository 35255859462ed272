import { LRUCache } from 'lru-cache';
import type { TokenClaims } from './auth/tokens';
import type { IngestWorkflow, KnownSnapshot } from './ingest/plan';

/**
 * The bounded in-memory caches of one process, made at start-up and passed to their owners' constructors
 * (never module globals), so each bound is stated here once and a test can give an owner a small one.
 * What keeps each right is said at its owner; none holds membership or deletion. The read pages' cache,
 * with its stamp types, is in reads/page-cache.ts.
 */

/** The ingest's workflow rows (`IngestWorkflows`); forgotten on the engine bus's `stale` and `forget`. */
export const ingestRowCache = (max = 10_000) => new LRUCache<string, IngestWorkflow>({ max });

/** What `SnapshotCache` knows of a workflow's latest snapshot: `latest` is null when it has none. */
export interface LatestSnapshot {
  latest: KnownSnapshot | null;
}

/** The latest snapshot of each active workflow (`SnapshotCache`); forgotten with the ingest's rows. */
export const snapshotCache = (max = 10_000) => new LRUCache<string, LatestSnapshot>({ max });

/** Token text → claims whose signature `TokenService` verified; each entry lives until the token expires. */
export const verifiedTokenCache = (max = 10_000) => new LRUCache<string, TokenClaims>({ max });

/** Template commit id → its README line (`GitTemplateCatalog`); the id is immutable, so nothing goes stale. */
export const templateDescriptionCache = (max = 1_000) => new LRUCache<string, string>({ max });

/** Tool input JSON text → its YAML (`ToolInputYaml`, the hot reads' log pages); bounded by characters held. */
export const toolInputYamlCache = (maxChars = 16 * 1024 * 1024) =>
  new LRUCache<string, string>({ maxSize: maxChars, sizeCalculation: (yaml, json) => json.length + yaml.length });
