import { recordAudit, type AuditContext, type AuditEntry } from '../audit/record';
import { classifyDbError, type Db } from '@svc/db';
import type { Page, SecretEvent, SecretEventKind, SecretInfo, SecretVisibility } from '@svc/protocol';
import { encodeCursor, newestFirstAfter } from '../http/pagination';
import { sealSecret, type SecretRef } from './cipher';
import type { SecretKeyring } from './keyring';

/** Whose secrets: a project's, or the instance's. */
export type SecretOwner = { scope: 'project'; projectId: string } | { scope: 'instance' };

/** The audit row of a secret's change: its name and scope, never its value. */
const secretAudit = (owner: SecretOwner, name: string, change: 'created' | 'updated' | 'deleted'): AuditEntry => ({
  action: `secret.${change}`,
  target: { type: 'secret', id: name },
  projectId: owner.scope === 'project' ? owner.projectId : null,
  detail: { scope: owner.scope, name },
});

/** The unique key of a row: the project id, or '' for the instance (a unique index treats nulls as distinct). */
export const ownerKeyOf = (owner: SecretOwner) => (owner.scope === 'project' ? owner.projectId : '');

export const refOf = (owner: SecretOwner, name: string): SecretRef => ({
  scope: owner.scope,
  projectId: owner.scope === 'project' ? owner.projectId : null,
  name,
});

export interface SecretStoreDeps {
  db: Db;
  keyring: SecretKeyring;
  /** after a change: the runs' maskers are rebuilt (on every replica) */
  changed: () => void;
}

type Row = { name: string; created_at: Date; updated_at: Date; updated_by: string | null; visibility: string | null };

/**
 * The management of secrets: list names, create or replace a value (encrypted before it is stored),
 * delete, and the audit. No method returns a value.
 */
export class SecretStore {
  constructor(private readonly deps: SecretStoreDeps) {}

  async list(owner: SecretOwner): Promise<SecretInfo[]> {
    const rows = await this.deps.db.secret.findMany({
      where: { scope: owner.scope, owner_key: ownerKeyOf(owner) },
      orderBy: { name: 'asc' },
      select: { name: true, created_at: true, updated_at: true, updated_by: true, visibility: true },
    });
    const names = await this.actorNames(rows.map((row) => row.updated_by));
    return rows.map((row) => presentSecret(row, names));
  }

  /** Creates or replaces a value; `created` tells which. A concurrent create of the same name becomes a replace. */
  async put(
    owner: SecretOwner,
    name: string,
    value: string,
    visibility: SecretVisibility | null,
    actorId: string,
    audit?: AuditContext,
  ): Promise<{ created: boolean; info: SecretInfo }> {
    const sealed = sealSecret(this.deps.keyring, refOf(owner, name), value);
    const where = { scope_owner_key_name: { scope: owner.scope, owner_key: ownerKeyOf(owner), name } };
    const data = { ...sealed, visibility, updated_by: actorId };
    const write = () =>
      this.deps.db.$transaction(async (tx) => {
        const existing = await tx.secret.findUnique({ where, select: { id: true } });
        const row = existing
          ? await tx.secret.update({ where: { id: existing.id }, data })
          : await tx.secret.create({
              data: {
                ...data,
                scope: owner.scope,
                owner_key: ownerKeyOf(owner),
                project_id: owner.scope === 'project' ? owner.projectId : null,
                name,
                created_by: actorId,
              },
            });
        await tx.secretEvent.create({ data: eventData(owner, name, existing ? 'updated' : 'created', actorId) });
        if (audit) await recordAudit(tx, audit, secretAudit(owner, name, existing ? 'updated' : 'created'));
        return { created: !existing, row };
      });
    let result: Awaited<ReturnType<typeof write>>;
    try {
      result = await write();
    } catch (error) {
      if (classifyDbError(error) !== 'conflict') throw error;
      result = await write();
    }
    this.deps.changed();
    const names = await this.actorNames([actorId]);
    return { created: result.created, info: presentSecret(result.row, names) };
  }

  /** Deletes a secret; false when there was none. */
  async remove(owner: SecretOwner, name: string, actorId: string, audit?: AuditContext): Promise<boolean> {
    const deleted = await this.deps.db.$transaction(async (tx) => {
      const { count } = await tx.secret.deleteMany({
        where: { scope: owner.scope, owner_key: ownerKeyOf(owner), name },
      });
      if (count === 0) return false;
      await tx.secretEvent.create({ data: eventData(owner, name, 'deleted', actorId) });
      if (audit) await recordAudit(tx, audit, secretAudit(owner, name, 'deleted'));
      return true;
    });
    if (deleted) this.deps.changed();
    return deleted;
  }

  /**
   * The audit, newest first, after `[at, id]` of the previous page. A project's includes its runs' uses
   * of instance secrets; the instance's holds every instance secret's changes and uses.
   */
  async events(owner: SecretOwner, limit: number, after?: readonly [string, string]): Promise<Page<SecretEvent>> {
    const scopeWhere = owner.scope === 'project' ? { project_id: owner.projectId } : { scope: 'instance' };
    const rows = await this.deps.db.secretEvent.findMany({
      where: { ...scopeWhere, ...(after ? newestFirstAfter('at', new Date(after[0]), after[1]) : {}) },
      orderBy: [{ at: 'desc' }, { id: 'desc' }],
      take: limit + 1,
    });
    const page = rows.slice(0, limit);
    const names = await this.actorNames(page.map((row) => row.actor_id));
    const last = page[page.length - 1];
    return {
      items: page.map((row) => ({
        id: row.id,
        kind: row.kind as SecretEventKind,
        name: row.name,
        scope: row.scope as SecretEvent['scope'],
        actor: actorOf(row.actor_id, names),
        workflow_id: row.workflow_id,
        at: row.at.toISOString(),
      })),
      next_cursor: rows.length > limit && last ? encodeCursor([last.at.toISOString(), last.id]) : null,
    };
  }

  /** id → display name of the people named (a person gone since is left out). */
  private async actorNames(ids: (string | null)[]): Promise<Map<string, string>> {
    const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
    if (wanted.length === 0) return new Map();
    const users = await this.deps.db.user.findMany({
      where: { id: { in: wanted } },
      select: { id: true, name: true, login: true },
    });
    return new Map(users.map((user) => [user.id, user.name || user.login]));
  }
}

const eventData = (owner: SecretOwner, name: string, kind: SecretEventKind, actorId: string) => ({
  kind,
  scope: owner.scope,
  project_id: owner.scope === 'project' ? owner.projectId : null,
  name,
  actor_id: actorId,
});

const actorOf = (id: string | null, names: Map<string, string>) => {
  const name = id === null ? undefined : names.get(id);
  return id !== null && name !== undefined ? { id, name } : null;
};

function presentSecret(row: Row, names: Map<string, string>): SecretInfo {
  return {
    name: row.name,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    updated_by: actorOf(row.updated_by, names),
    ...(row.visibility ? { visibility: row.visibility as SecretVisibility } : {}),
  };
}
