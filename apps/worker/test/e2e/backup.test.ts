import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ExecutionLogEntry, FileEntry, Project, Workflow } from '@svc/protocol';
import { advance, plan, scriptedAgent } from '@svc/scripted-llm';
import {
  apiEntry,
  createTestDatabase,
  type TestDatabase,
  eventually,
  INHERITED_PATH,
  Session,
  spawnProcess,
  startApiProcess,
  type ApiProcess,
  type DbProvider,
} from '@svc/test-kit';
import { E2E_TIMEOUT_MS, startStack, type Stack } from '../support/e2e-stack';

/**
 * Issue 26: an online backup taken while a real worker runs a workflow (paused on a question, so the run
 * is demonstrably in progress), restored into a fresh installation, serves every project, run, log
 * entry, workspace file and stored object byte for byte.
 */

const QUESTION = 'Shall I finish the page?';

const agent = scriptedAgent({
  title: 'Backed-up page',
  planning: [plan('Prepare the files', 'Finish the page')],
  steps: {
    1: [
      {
        name: 'execute_on_worker',
        arguments: {
          command:
            'mkdir -p site/img && printf "<h1>Hello</h1>\\n" > site/index.html && head -c 262144 /dev/urandom > site/img/blob.bin',
        },
      },
      { name: 'ask_user', arguments: { question: QUESTION } },
      advance('files prepared'),
    ],
    2: [{ name: 'execute_on_worker', arguments: { command: 'printf done > done.txt' } }, advance('page finished')],
  },
});

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * Everything a person sees of the installation, files and objects as sizes and hashes of their bytes;
 * the server's own address (in built-app links) is written as `<server>`.
 */
async function inventory(alice: Session, root: Session) {
  return JSON.parse(JSON.stringify(await see(alice, root)).replaceAll(alice.baseUrl, '<server>')) as unknown;
}

async function see(alice: Session, root: Session) {
  const bytes = async (p: string) => {
    const res = await alice.fetch(p);
    if (!res.ok) throw new Error(`GET ${p}: ${res.status}`);
    const data = new Uint8Array(await res.arrayBuffer());
    return { size: data.length, sha256: sha(data) };
  };
  const encode = (p: string) => p.split('/').map(encodeURIComponent).join('/');
  const projects = (await alice.json<Project[]>('/projects')).sort((a, b) => a.id.localeCompare(b.id));
  const out: Record<string, unknown> = { projects, deleted: await root.json('/admin/deleted-projects') };
  for (const project of projects) {
    const workflows = await alice.json<{ items: Workflow[] }>(`/projects/${project.id}/workflows?limit=1000`);
    for (const listed of workflows.items) {
      const id = listed.id;
      const files = await alice.json<FileEntry[]>(`/workflows/${id}/files?path=&recursive=1`);
      const contents: Record<string, unknown> = {};
      for (const file of files.filter((f) => f.type === 'file'))
        contents[file.path] = await bytes(`/workflows/${id}/files/${encode(file.path)}?raw`);
      out[`workflow ${id}`] = {
        listed,
        workflow: await alice.json(`/workflows/${id}`),
        plan: await alice.json(`/workflows/${id}/plan`),
        log: (await alice.json<{ items: ExecutionLogEntry[] }>(`/workflows/${id}/log?limit=1000`)).items,
        llm_calls: await alice.json(`/workflows/${id}/llm-calls?limit=1000`),
        files,
        contents,
      };
    }
    const objects = await alice.json<FileEntry[]>(`/projects/${project.id}/storage/?recursive=1`);
    const objectBytes: Record<string, unknown> = {};
    for (const object of objects.filter((o) => o.type === 'file'))
      objectBytes[object.path] = await bytes(`/projects/${project.id}/storage/${encode(object.path)}`);
    out[`storage ${project.id}`] = { objects, objectBytes };
  }
  return out;
}

/** `node apps/api/dist/index.js <args>` with the server's environment; its exit code and output. */
async function svcApi(args: string[], env: Record<string, string>) {
  const child = spawnProcess(`svc-api ${args[0]}`, process.execPath, [apiEntry(), ...args], {
    cwd: tmpdir(),
    env: {
      PATH: INHERITED_PATH,
      NODE_ENV: 'test',
      AUTH_PROVIDER: 'dev',
      ADMIN_USERS: 'root',
      LOG_LEVEL: 'warn',
      ...env,
    },
  });
  const exit = await child.exited;
  return { code: exit.code, output: child.output };
}

describe.each<DbProvider>(['sqlite', 'postgresql'])('backup and restore on %s', (provider) => {
  let stack: Stack;
  let restored: ApiProcess | undefined;
  let target: { database: TestDatabase; dataDir: string } | undefined;
  const extra: { server?: ApiProcess; database: TestDatabase; dataDir: string }[] = [];
  const scratch = mkdtempSync(path.join(tmpdir(), 'svc-backup-e2e-'));

  beforeAll(async () => {
    stack = await startStack({ db: provider, handler: agent });
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    await restored?.stop();
    for (const more of extra) {
      await more.server?.stop();
      await more.database.drop().catch(() => undefined);
      rmSync(more.dataDir, { recursive: true, force: true });
    }
    await stack?.close();
    await target?.database.drop().catch(() => undefined);
    if (target) rmSync(target.dataDir, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  });

  it(
    'takes a backup while a run is in progress and restores it into a fresh installation, byte for byte',
    async () => {
      const { alice, root } = stack;
      const { id } = await alice.createWorkflow(stack.projectId, 'Make a page, then ask before finishing it.');
      await stack.waitForStatus(id, 'waiting_user');
      await eventually(async () => (await alice.fetch(`/workflows/${id}/files/site/img/blob.bin?raw`)).ok, {
        what: "the worker's files on the server",
        giveUpAfterMs: 60_000,
      });
      // objects of the project, and a deleted project whose files are in the archive
      const object = randomBytes(300 * 1024);
      await alice.json(`/projects/${stack.projectId}/storage/assets/data.bin`, { method: 'PUT', body: object });
      await alice.json(`/projects/${stack.projectId}/storage/notes/read%20me.txt`, {
        method: 'PUT',
        body: 'ünïcode\n',
      });
      const gone = await alice.createProject('gone');
      await alice.json(`/projects/${gone.id}/storage/kept.txt`, { method: 'PUT', body: 'archived bytes' });
      expect((await alice.fetch(`/projects/${gone.id}`, { method: 'DELETE' })).status).toBe(204);
      const before = await inventory(alice, root);

      // the backup, with the worker connected and the run waiting for its answer
      const backupDir = path.join(scratch, 'backup');
      const source = { DATABASE_URL: stack.api.databaseUrl, DATA_DIR: stack.api.dataDir };
      const backup = await svcApi(['backup', '--to', backupDir], source);
      expect(backup).toMatchObject({ code: 0 });
      expect(backup.output).toContain(`backup written to ${backupDir}`);
      console.log(`${provider} backup: ${backup.output.trim()}`);
      expect(stack.workers[0]!.exit).toBeNull();
      expect((await alice.workflow(id)).status).toBe('waiting_user');

      // the run goes on after the backup, on the original installation
      await alice.json(`/workflows/${id}/answer`, { json: { answer: 'yes' } });
      await stack.waitForStatus(id, 'completed');

      // a fresh installation: an empty data folder and a new database
      const database = await createTestDatabase(provider, { migrate: false });
      const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-restored-'));
      target = { database, dataDir };
      const into = {
        DATABASE_URL: provider === 'sqlite' ? `file:${path.join(dataDir, 'svc.db')}` : database.url,
        DATA_DIR: dataDir,
      };
      const restore = await svcApi(['restore', '--from', backupDir], into);
      expect(restore).toMatchObject({ code: 0 });
      console.log(`${provider} restore: ${restore.output.trim()}`);

      // a second restore finds the installation in use and refuses, changing nothing
      const again = await svcApi(['restore', '--from', backupDir], into);
      expect(again.code).toBe(1);
      expect(again.output).toMatch(/not empty/);

      restored = await startApiProcess({
        provider,
        shared: { databaseUrl: into.DATABASE_URL, dataDir },
        env: { LOG_LEVEL: 'warn' },
      });
      // the signing keys came along: the sessions of the original installation still work
      const alice2 = new Session(restored.url, alice.credential);
      const root2 = new Session(restored.url, root.credential);
      expect(await inventory(alice2, root2)).toEqual(before);
      const run = await alice2.json<Workflow>(`/workflows/${id}`);
      expect(run.status).toBe('waiting_user');

      // the archive came along: the deleted project comes back with its files
      await root2.json(`/projects/${gone.id}/restore`, { method: 'POST' });
      expect(await alice2.text(`/projects/${gone.id}/storage/kept.txt`)).toBe('archived bytes');
    },
    E2E_TIMEOUT_MS * 2,
  );

  it(
    'takes a backup while the run writes files and finishes; the restored installation serves all it lists',
    async () => {
      const { alice } = stack;
      const { id } = await alice.createWorkflow(stack.projectId, 'Make another page while a backup is taken.');
      await stack.waitForStatus(id, 'waiting_user');
      // the answer lets the run write its files and finish while the backup copies
      const backupDir = path.join(scratch, 'during');
      const source = { DATABASE_URL: stack.api.databaseUrl, DATA_DIR: stack.api.dataDir };
      const [backup] = await Promise.all([
        svcApi(['backup', '--to', backupDir], source),
        alice.json(`/workflows/${id}/answer`, { json: { answer: 'yes' } }),
      ]);
      expect(backup).toMatchObject({ code: 0 });
      await stack.waitForStatus(id, 'completed');

      const database = await createTestDatabase(provider, { migrate: false });
      const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-restored-during-'));
      const more: (typeof extra)[number] = { database, dataDir };
      extra.push(more);
      const into = {
        DATABASE_URL: provider === 'sqlite' ? `file:${path.join(dataDir, 'svc.db')}` : database.url,
        DATA_DIR: dataDir,
      };
      expect(await svcApi(['restore', '--from', backupDir], into)).toMatchObject({ code: 0 });
      more.server = await startApiProcess({ provider, shared: { databaseUrl: into.DATABASE_URL, dataDir } });
      const alice2 = new Session(more.server.url, alice.credential);
      // the run as it was at the snapshot, somewhere between the question and its end
      const run = await alice2.json<Workflow>(`/workflows/${id}`);
      expect(['waiting_user', 'running', 'completed']).toContain(run.status);
      const log = (await alice2.json<{ items: ExecutionLogEntry[] }>(`/workflows/${id}/log?limit=1000`)).items;
      expect(log.map((e) => e.seq)).toEqual([...log.map((e) => e.seq)].sort((a, b) => a - b));
      // every file the restored server lists is there, whole: the files were copied after the snapshot
      const files = await alice2.json<FileEntry[]>(`/workflows/${id}/files?path=&recursive=1`);
      expect(files.map((f) => f.path)).toEqual(expect.arrayContaining(['site/index.html', 'site/img/blob.bin']));
      for (const file of files.filter((f) => f.type === 'file')) {
        const res = await alice2.fetch(`/workflows/${id}/files/${file.path}?raw`);
        expect(res.status).toBe(200);
        expect((await res.arrayBuffer()).byteLength).toBe(file.size);
      }
    },
    E2E_TIMEOUT_MS * 2,
  );

  it('refuses to restore into a data folder that has content', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-not-empty-'));
    try {
      writeFileSync(path.join(dataDir, 'something.txt'), 'mine');
      const database = await createTestDatabase(provider, { migrate: false });
      try {
        const refused = await svcApi(['restore', '--from', path.join(scratch, 'backup')], {
          DATABASE_URL: provider === 'sqlite' ? `file:${path.join(dataDir, 'svc.db')}` : database.url,
          DATA_DIR: dataDir,
        });
        expect(refused.code).toBe(1);
        expect(refused.output).toMatch(/data folder .* is not empty \(something\.txt/);
      } finally {
        await database.drop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
