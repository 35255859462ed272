import { randomBytes } from 'node:crypto';
import type { Db, Prisma, Workflow } from '@svc/db';
import type { Config } from '../config';

/**
 * Built apps (issue 14, finding 2): each workflow's workspace is served at the capability URL
 * `<APP_ORIGIN or PUBLIC_URL>/svc/apps/<app_key>/`, where `app_key` is 32 random bytes (base64url)
 * stored on the workflow. Knowing the key is the permission: no session is needed or used.
 */

/** 32 random bytes, base64url: 43 characters. */
export const newAppKey = (): string => randomBytes(32).toString('base64url');

export const APP_KEY_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * Where the app links point, built once from the config with the app's other dependencies and passed
 * to whoever presents a workflow. The base is read at each use: a test sets `publicUrl` once its port
 * is known.
 */
export class AppLinks {
  constructor(private readonly settings: Pick<Config, 'appOrigin' | 'publicUrl'>) {}

  /** The workflow's app link, or null when it has no key (yet). */
  linkOf(workflow: Pick<Workflow, 'app_key'>): string | null {
    if (!workflow.app_key) return null;
    return `${this.settings.appOrigin ?? this.settings.publicUrl}/svc/apps/${workflow.app_key}/`;
  }
}

/** Gives the workflow a key when it has none (workflows made before keys existed); returns the key. */
export async function ensureAppKey(db: Db, workflow: Pick<Workflow, 'id' | 'app_key'>): Promise<string> {
  if (workflow.app_key) return workflow.app_key;
  // Only where none is set yet: two replicas racing end with one key, the first one written.
  await db.workflow.updateMany({ where: { id: workflow.id, app_key: null }, data: { app_key: newAppKey() } });
  const row = await db.workflow.findUniqueOrThrow({ where: { id: workflow.id }, select: { app_key: true } });
  return row.app_key!;
}

/**
 * Keys for every workflow without one, a batch at a time (run once at start-up). `stopped` is asked
 * between rows, so shutdown never closes the database under one of these writes.
 */
export async function backfillAppKeys(db: Db, stopped: () => boolean = () => false): Promise<number> {
  let done = 0;
  while (!stopped()) {
    const batch = await db.workflow.findMany({ where: { app_key: null }, select: { id: true }, take: 200 });
    if (batch.length === 0) break;
    for (const { id } of batch) {
      if (stopped()) break;
      done += (await db.workflow.updateMany({ where: { id, app_key: null }, data: { app_key: newAppKey() } })).count;
    }
  }
  return done;
}

/** A new key: the old link stops working at once, on every replica (the key is read per request). */
export async function rotateAppKey(db: Db, workflowId: string): Promise<Workflow> {
  return db.workflow.update({ where: { id: workflowId }, data: { app_key: newAppKey() } });
}

/**
 * Takes the keys of all of a project's workflows away at once (issue 21, finding 7): a member who leaves
 * must not keep reading its apps through links they saw. One statement, in the caller's transaction
 * with the membership change; `backfillAppKeys` then gives each workflow a new key.
 */
export async function revokeProjectAppKeys(tx: Prisma.TransactionClient, projectId: string): Promise<void> {
  await tx.workflow.updateMany({ where: { project_id: projectId, app_key: { not: null } }, data: { app_key: null } });
}
