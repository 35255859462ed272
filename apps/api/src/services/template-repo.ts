import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { LRUCache } from 'lru-cache';
import type { Template } from '@svc/protocol';
import { notFound } from '../domain/errors';
import type { TemplateCatalog } from './templates';
import { materializeTree } from './template-materialize';
import type { StorageArea } from './storage';
import {
  cloneInto,
  fetchInto,
  hasLocalCopy,
  readBranches,
  readDescription,
  readRequires,
  readSecretNames,
  readRemoteRefs,
  restoreRefs,
} from './template-git';

export interface TemplateRepoConfig {
  repoUrl: string | null;
  /** The spec's `local_path`: where the clone lives. */
  localPath: string;
}

export interface TemplateSyncResult {
  action: 'clone' | 'fetch' | 'none';
  ok: boolean;
  error?: string;
}

/** `list()` starts a background fetch when the last sync is older than this. */
export const TEMPLATE_REFRESH_MS = 5 * 60_000;
/** How long `list()` waits for a first clone still in flight before answering from what is on disk. */
const FIRST_CLONE_WAIT_MS = 10_000;

const redact = (url: string) => url.replace(/\/\/[^/@]*@/, '//***@');

/**
 * Templates are the remote branches of a git repository (CONTRACT section 3). The clone happens in the
 * background: start-up never waits for it, and an unreachable server leaves the local copy in service
 * (the failure is logged). Readers use the branch list pinned at the last completed sync, so a fetch
 * in progress (whose refs move before its objects land) is never seen half-done.
 */
export class GitTemplateCatalog implements TemplateCatalog {
  private syncing: Promise<TemplateSyncResult> | null = null;
  private lastSyncAt = 0;
  private pinned: Promise<Map<string, string>> | null = null;
  constructor(
    private readonly config: TemplateRepoConfig,
    private readonly logger: Logger,
    /** commit id → README line (`templateDescriptionCache`); an id never changes what it names */
    private readonly descriptions: LRUCache<string, string>,
  ) {}

  /** Clones when there is no local copy, fetches (pruning deleted branches) when there is. Never throws. */
  sync(): Promise<TemplateSyncResult> {
    this.syncing ??= this.runSync().finally(() => {
      this.lastSyncAt = Date.now();
      this.syncing = null;
    });
    return this.syncing;
  }

  /** Starts a sync nobody waits for (start-up, a stale list); a failure before git even ran is logged. */
  syncInBackground(): void {
    this.sync().catch((error: unknown) => this.logger.error({ err: error }, 'template repository sync failed'));
  }

  /** Resolves once no sync is running, or after `timeoutMs` (shutdown does not hang on a slow server). */
  async idle(timeoutMs = 5_000): Promise<void> {
    if (this.syncing) await Promise.race([this.syncing, delay(timeoutMs, undefined, { ref: false })]);
  }

  async list(): Promise<Template[]> {
    await this.freshen();
    const cache = {};
    const templates: Template[] = [];
    for (const [name, oid] of await this.branches())
      templates.push({ name, description: await this.describe(oid, cache) });
    return templates;
  }

  /** Writes the branch's files into a workspace; entries that would escape it are refused and logged. */
  async materialize(name: string, target: StorageArea): Promise<void> {
    const oid = (await this.branches()).get(name);
    if (!oid) throw notFound(`no template named ${JSON.stringify(name)}`);
    const outcome = await materializeTree(this.config.localPath, oid, target);
    if (outcome.refused.length)
      this.logger.warn({ template: name, refused: outcome.refused }, 'template entries refused');
  }

  /** The labels the template's runs require (`.svc-requires`); an unknown template throws not_found. */
  async requires(name: string): Promise<string[]> {
    const oid = (await this.branches()).get(name);
    if (!oid) throw notFound(`no template named ${JSON.stringify(name)}`);
    const { labels, refused } = await readRequires(this.config.localPath, oid);
    if (refused.length) this.logger.warn({ template: name, refused }, 'template labels left out of .svc-requires');
    return labels;
  }

  /** The instance secrets the template's runs may get (`.svc-secrets`); an unknown template has none. */
  async secretNames(name: string): Promise<string[]> {
    const oid = (await this.branches()).get(name);
    return oid ? readSecretNames(this.config.localPath, oid) : [];
  }

  private branches(): Promise<Map<string, string>> {
    this.pinned ??= this.repin();
    return this.pinned;
  }

  private repin(): Promise<Map<string, string>> {
    const reading = readBranches(this.config.localPath).catch((error: unknown) => {
      if (this.pinned === reading) this.pinned = null; // try again on the next read
      throw error;
    });
    this.pinned = reading;
    return reading;
  }

  private async freshen(): Promise<void> {
    if (!this.config.repoUrl) return;
    if (!this.syncing && Date.now() - this.lastSyncAt > TEMPLATE_REFRESH_MS) this.syncInBackground();
    if (this.syncing && (await this.branches()).size === 0)
      await Promise.race([this.syncing, delay(FIRST_CLONE_WAIT_MS, undefined, { ref: false })]);
  }

  private async describe(oid: string, cache: object): Promise<string> {
    const known = this.descriptions.get(oid);
    if (known !== undefined) return known;
    try {
      const description = await readDescription(this.config.localPath, oid, cache);
      this.descriptions.set(oid, description);
      return description;
    } catch (error) {
      this.logger.warn({ err: error, commit: oid }, 'template README could not be read');
      return '';
    }
  }

  private async runSync(): Promise<TemplateSyncResult> {
    const url = this.config.repoUrl;
    if (!url) return { action: 'none', ok: true };
    await this.branches(); // readers keep this view until the sync is complete
    const dir = this.config.localPath;
    const before = await readRemoteRefs(dir);
    const action = (await hasLocalCopy(dir)) ? 'fetch' : 'clone';
    try {
      if (action === 'fetch') await fetchInto(dir, url);
      else await cloneInto(dir, url);
      await this.repin();
      this.logger.info({ action, url: redact(url) }, 'template repository synced');
      return { action, ok: true };
    } catch (error) {
      if (action === 'fetch')
        await restoreRefs(dir, before).catch((repairError) =>
          this.logger.error({ err: repairError }, 'template refs could not be restored'),
        );
      this.logger.error(
        { err: error, action, url: redact(url) },
        'template repository sync failed; serving the local copy',
      );
      return { action, ok: false, error: (error as Error).message };
    }
  }
}
