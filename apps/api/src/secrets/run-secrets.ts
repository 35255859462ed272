import type { Logger } from 'pino';
import { LRUCache } from 'lru-cache';
import {
  classifyDbError,
  prepare,
  queryBuilder,
  type Db,
  type DbProvider,
  type Expression,
  type ExpressionBuilder,
  type Prepared,
  type SqlBool,
  type SqlReader,
  type Tables,
} from '@svc/db';
import type { DispatchRepository, RunSecret } from '@svc/protocol';
import { SecretMasker } from '@svc/text';
import { openSecret, SecretDecryptError } from './cipher';
import type { SecretKeyring } from './keyring';
import type { TemplateCatalog } from '../services/templates';

/** What a run's secrets are chosen by. */
export interface RunOfSecrets {
  id: string;
  project_id: string;
  template: string | null;
}

export interface RunSecretsDeps {
  db: Db;
  /** each dispatch's look-up of its run's repository, on the driver */
  reader: SqlReader;
  provider: DbProvider;
  keyring: SecretKeyring;
  /** the `.svc-secrets` file of a run's template (instance secrets of visibility `templates`) */
  templates: Pick<TemplateCatalog, 'secretNames'>;
  logger: Logger;
}

/** What a dispatch reads of its run's repository link (the repository's `deleted_at` only tested for null). */
interface RepositoryLink {
  repository_id: string;
  base_branch: string;
  branch: string;
  url: string;
  credential_kind: string;
  deleted_at: unknown;
}

/** The author and committer of a run's commits (the requester is their co-author). */
export const SERVICE_AUTHOR = { name: 'svc', email: 'svc@users.noreply.svc' };

/** A credential and the forms git sends it in (an SSH key's lines are masked one by one too). */
export function credentialForms(value: string): string[] {
  const lines = value
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length >= 16 && !line.startsWith('-----'));
  return [value, Buffer.from(`x-access-token:${value}`).toString('base64'), ...lines];
}

/** How long a run's masker, and the knowledge that no secret exists at all, are trusted without a change heard. */
const MASKER_TTL_MS = 30_000;

/** What a dispatch reads of each secret its run may get (the sealed value and what chooses it). */
interface SecretRow {
  scope: string;
  project_id: string | null;
  owner_key: string;
  name: string;
  key_id: string;
  iv: string;
  tag: string;
  ciphertext: string;
  visibility: string | null;
}

interface MaskerEntry {
  /** null: the run has no secret */
  masker: SecretMasker | null;
  values: string[];
  /** a secret changed since: rebuilt on next use, still masking the values it held (a run may have them) */
  stale: boolean;
}

/**
 * The secrets a run of the project may get: the project's and the instance's (`projectId` a value, or the
 * project column of an outer query).
 */
export const ofRunsIn = (
  eb: ExpressionBuilder<Tables, 'secrets'>,
  projectId: string | Expression<string>,
): Expression<SqlBool> =>
  eb.or([eb.and([eb('scope', '=', 'project'), eb('owner_key', '=', projectId)]), eb('scope', '=', 'instance')]);

/**
 * The secrets of a run: chosen and decrypted when it is dispatched (or an `exec` runs for it), and
 * each (run, secret) use recorded once. Also the run's masker for what the server itself stores and
 * shows (defence in depth: the worker masks first): cached briefly, rebuilt after a change, and
 * answered without any query while no secret exists.
 */
export class RunSecrets {
  private readonly maskers = new LRUCache<string, MaskerEntry>({ max: 2_000, ttl: MASKER_TTL_MS });
  private readonly loading = new Map<string, Promise<SecretMasker | null>>();
  /** until when "no secret exists" holds (0: unknown) */
  private noSecretsUntil = 0;
  private generation = 0;

  /** A run's repository link with what a dispatch needs of the repository (every dispatch looks). */
  private readonly repositoryLink: Prepared<{ workflowId: string }>;
  /** The project's secrets and the instance's, by name (every dispatch looks). */
  private readonly projectAndInstanceSecrets: Prepared<{ projectId: string }>;

  constructor(private readonly deps: RunSecretsDeps) {
    this.repositoryLink = prepare(deps.provider, (arg) =>
      queryBuilder(deps.provider)
        .selectFrom('workflow_repositories as l')
        .innerJoin('repositories as r', 'r.id', 'l.repository_id')
        .select(['l.repository_id', 'l.base_branch', 'l.branch', 'r.url', 'r.credential_kind', 'r.deleted_at'])
        .where('l.workflow_id', '=', arg('workflowId')),
    );
    this.projectAndInstanceSecrets = prepare(deps.provider, (arg) =>
      queryBuilder(deps.provider)
        .selectFrom('secrets')
        .select(['scope', 'project_id', 'owner_key', 'name', 'key_id', 'iv', 'tag', 'ciphertext', 'visibility'])
        .where((eb) => ofRunsIn(eb, arg('projectId')))
        .orderBy('name'),
    );
  }

  /** The values a run gets (a project secret shadows an instance one of its name); records their use. */
  async forRun(run: RunOfSecrets): Promise<RunSecret[]> {
    const rows = await this.rowsFor(run);
    if (rows.length === 0) return [];
    const secrets = this.decrypt(rows);
    await this.recordUse(run, rows);
    return secrets.map(({ name, value }) => ({ name, value }));
  }

  /**
   * The masker of a run's texts: null when it has no secret. Synchronous when known (the ingest's hot
   * path keeps the order of updates), a promise when it must be read.
   */
  maskerFor(workflowId: string): SecretMasker | null | Promise<SecretMasker | null> {
    if (this.noSecretsUntil > Date.now()) return null;
    const entry = this.maskers.get(workflowId);
    if (entry && !entry.stale) return entry.masker;
    let loading = this.loading.get(workflowId);
    if (!loading) {
      const generation = this.generation;
      loading = this.loadMasker(workflowId, entry?.values ?? []).finally(() => {
        if (this.loading.get(workflowId) === loading) this.loading.delete(workflowId);
      });
      if (generation === this.generation) this.loading.set(workflowId, loading);
    }
    return loading;
  }

  /** The masker of a run's texts, read when not known (the app's previews, diffs and report). */
  async maskerOf(workflowId: string): Promise<SecretMasker | null> {
    return this.maskerFor(workflowId);
  }

  /** Secrets changed (here or on another replica): maskers are rebuilt on their next use. */
  changed(): void {
    this.generation += 1;
    this.noSecretsUntil = 0;
    this.loading.clear();
    for (const entry of this.maskers.values()) entry.stale = true;
  }

  private async loadMasker(workflowId: string, previous: string[]): Promise<SecretMasker | null> {
    const generation = this.generation;
    if (previous.length === 0 && (await this.deps.db.secret.findFirst({ select: { id: true } })) === null) {
      if (generation === this.generation) this.noSecretsUntil = Date.now() + MASKER_TTL_MS;
      return null;
    }
    const run = await this.deps.db.workflow.findUnique({
      where: { id: workflowId },
      select: { id: true, project_id: true, template: true },
    });
    const values = run ? this.decrypt(await this.rowsFor(run)).map((secret) => secret.value) : [];
    const credential = run ? await this.repositoryCredential(run.id) : null;
    if (credential) values.push(...credentialForms(credential.value));
    const all = [...new Set([...values, ...previous])];
    const masker = all.length === 0 ? null : new SecretMasker(all);
    if (generation === this.generation) this.maskers.set(workflowId, { masker, values: all, stale: false });
    return masker;
  }

  /**
   * The run's repository for its dispatch (decision 0046): where to clone from and push to, its branch,
   * the credential (decrypted now; it joins the run's masker), the service as author and the requester
   * as co-author. Undefined when the run works in no repository or the repository is gone.
   */
  async repositoryFor(run: Pick<RunOfSecrets, 'id'>): Promise<DispatchRepository | undefined> {
    const { db } = this.deps;
    const link = (await this.deps.reader.row(this.repositoryLink.bind({ workflowId: run.id }))) as
      | RepositoryLink
      | undefined;
    if (!link || link.deleted_at !== null) return undefined;
    const credential = await this.repositoryCredential(run.id);
    if (!credential) {
      this.deps.logger.error({ repository_id: link.repository_id }, 'the repository credential does not decrypt');
      return undefined;
    }
    const workflow = await db.workflow.findUnique({ where: { id: run.id }, select: { created_by: true } });
    const requester = workflow ? await db.user.findUnique({ where: { id: workflow.created_by } }) : null;
    return {
      url: link.url,
      base_branch: link.base_branch,
      branch: link.branch,
      credential: { kind: link.credential_kind as 'token' | 'ssh_key', value: credential.value },
      author: SERVICE_AUTHOR,
      ...(requester
        ? {
            co_author: {
              name: requester.name || requester.login,
              email: requester.email || `${requester.login}@users.noreply.svc`,
            },
          }
        : {}),
    };
  }

  /** The credential of the run's repository, decrypted; null without one. */
  private async repositoryCredential(workflowId: string): Promise<{ value: string } | null> {
    const { db } = this.deps;
    const link = await db.workflowRepository.findUnique({
      where: { workflow_id: workflowId },
      select: { repository_id: true },
    });
    if (!link) return null;
    const row = await db.secret.findUnique({
      where: { scope_owner_key_name: { scope: 'repository', owner_key: link.repository_id, name: 'credential' } },
    });
    if (!row?.project_id) return null;
    try {
      const ref = { scope: 'repository' as const, projectId: row.project_id, name: row.name, ownerKey: row.owner_key };
      return { value: openSecret(this.deps.keyring, ref, row) };
    } catch (error) {
      if (!(error instanceof SecretDecryptError)) throw error;
      return null;
    }
  }

  /** The rows a run gets: its project's, and the instance's it may have, a project's shadowing by name. */
  private async rowsFor(run: RunOfSecrets): Promise<SecretRow[]> {
    const rows = (await this.deps.reader.rows(
      this.projectAndInstanceSecrets.bind({ projectId: run.project_id }),
    )) as SecretRow[];
    const projectNames = new Set(rows.filter((row) => row.scope === 'project').map((row) => row.name));
    const instance = rows.filter((row) => row.scope === 'instance' && !projectNames.has(row.name));
    const templateNames = instance.some((row) => row.visibility === 'templates')
      ? new Set(await this.templateSecretNames(run.template))
      : new Set<string>();
    return rows.filter(
      (row) =>
        row.scope === 'project' ||
        (!projectNames.has(row.name) && (row.visibility === 'all' || templateNames.has(row.name))),
    );
  }

  private async templateSecretNames(template: string | null): Promise<string[]> {
    if (!template || !this.deps.templates.secretNames) return [];
    try {
      return await this.deps.templates.secretNames(template);
    } catch (err) {
      this.deps.logger.warn({ err, template }, 'the template secrets file could not be read');
      return [];
    }
  }

  /** Values of the rows; one that does not decrypt (its key gone, or tampered) is left out and logged by name. */
  private decrypt(rows: SecretRow[]): { name: string; value: string }[] {
    const values: { name: string; value: string }[] = [];
    for (const row of rows) {
      const ref = { scope: row.scope as 'project' | 'instance', projectId: row.project_id, name: row.name };
      try {
        values.push({ name: row.name, value: openSecret(this.deps.keyring, ref, row) });
      } catch (error) {
        if (!(error instanceof SecretDecryptError)) throw error;
        this.deps.logger.error({ secret: row.name, scope: row.scope, project_id: row.project_id }, error.message);
      }
    }
    return values;
  }

  /** One `used` event per (run, secret): the unique key makes a repeated dispatch record nothing. */
  private async recordUse(run: RunOfSecrets, rows: SecretRow[]): Promise<void> {
    const { db } = this.deps;
    const recorded = await db.secretEvent.findMany({
      where: { workflow_id: run.id },
      select: { scope: true, name: true },
    });
    const seen = new Set(recorded.map((event) => `${event.scope}\0${event.name}`));
    for (const row of rows) {
      if (seen.has(`${row.scope}\0${row.name}`)) continue;
      await db.secretEvent
        .create({
          data: { kind: 'used', scope: row.scope, project_id: run.project_id, name: row.name, workflow_id: run.id },
        })
        .catch((error: unknown) => {
          if (classifyDbError(error) !== 'conflict') throw error;
        });
    }
  }
}
