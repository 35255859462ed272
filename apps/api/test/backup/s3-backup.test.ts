import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { request, startS3Server, type S3Server } from '@svc/test-kit';
import type { Config } from '../../src/config';
import { buildRuntime } from '../../src/bootstrap';
import { startServer, type RunningServer } from '../../src/server';
import type { Runtime } from '../../src/bootstrap';
import { takeBackup } from '../../src/backup/backup';
import { restoreBackup } from '../../src/backup/restore';
import { BackupError } from '../../src/backup/manifest';
import { startTestServer, testConfig, type TestServer } from '../support/server';
import { createProject, createWorkflow } from '../support/fixtures';
import { storeCutCommandOutput, wholeOutput } from '../support/command-output';

/** Issue 26: with STORAGE_BACKEND=s3 the backup holds every object of the prefix, and a restore puts them back. */
describe('backup and restore with S3 storage', () => {
  let s3: S3Server;
  let source: TestServer;
  const scratch = mkdtempSync(join(tmpdir(), 'svc-s3-backup-'));
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    s3 = await startS3Server();
    source = await startTestServer('sqlite', s3.env('source'));
  });
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    await source?.close();
    await s3?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  /** An empty installation on the bucket under `prefix`: a new SQLite database and data folder. */
  async function emptyInstallation(prefix: string): Promise<Config> {
    const database: TestDatabase = await createTestDatabase('sqlite', { migrate: false });
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-s3-restored-'));
    cleanups.push(async () => {
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });
    return testConfig(database.url, dataDir, s3.env(prefix));
  }

  it('copies every object (workspaces, storage, archive) and restores them to an empty prefix', async () => {
    const ann = await source.login('ann');
    const project = await createProject(source, ann, 'On S3');
    const workflow = await createWorkflow(source, ann, project.id);
    const blob = randomBytes(200 * 1024);
    const put = async (path: string, body: Uint8Array | string) => {
      const res = await source.request(path, { method: 'PUT', as: ann, body });
      expect(res.status).toBeLessThan(300);
    };
    await put(`/svc/api/workflows/${workflow.id}/files/site/index.html`, '<h1>on s3</h1>');
    await put(`/svc/api/projects/${project.id}/storage/data/blob.bin`, blob);
    // whole command outputs of a live run and of a deleted project's run (decision 0080)
    await storeCutCommandOutput(source, project.id, workflow.id, wholeOutput('live'));
    const gone = await createProject(source, ann, 'Gone');
    const goneRun = await createWorkflow(source, ann, gone.id);
    await storeCutCommandOutput(source, gone.id, goneRun.id, wholeOutput('gone'));
    await put(`/svc/api/projects/${gone.id}/storage/kept.txt`, 'archived');
    expect((await source.request(`/svc/api/projects/${gone.id}`, { method: 'DELETE', as: ann })).status).toBe(204);

    const backupDir = join(scratch, 'backup');
    const manifest = await takeBackup(source.deps.config, backupDir, 'test');
    const objectPaths = manifest.files.filter((f) => f.path.startsWith('objects/')).map((f) => f.path);
    expect(objectPaths).toEqual(
      expect.arrayContaining([
        `objects/workspaces/${project.id}/${workflow.id}/site/index.html`,
        `objects/storage/${project.id}/data/blob.bin`,
        `objects/command-outputs/${project.id}/${workflow.id}/whole.log`,
        expect.stringMatching(new RegExp(`^objects/archive/${gone.id}-[^/]+/storage/kept.txt$`)),
        expect.stringMatching(new RegExp(`^objects/archive/${gone.id}-[^/]+/command-outputs/${goneRun.id}/whole.log$`)),
      ]),
    );
    expect(manifest.storage).toMatchObject({ backend: 's3', bucket: s3.bucket, prefix: 'source/' });

    const target = await emptyInstallation('restored');
    const summary = await restoreBackup(target, backupDir);
    expect(summary.manifest.totals).toEqual(manifest.totals);

    const runtime: Runtime = await buildRuntime(target, pino({ level: 'silent' }));
    const running: RunningServer = await startServer(runtime, { port: 0, host: '127.0.0.1' });
    cleanups.push(() => running.close());
    // the signing key came along: ann's session of the source works on the restored server
    const get = (path: string) => request(running.url, path, { as: ann });
    const object = await get(`/svc/api/projects/${project.id}/storage/data/blob.bin`);
    expect(Buffer.from(await object.arrayBuffer()).equals(blob)).toBe(true);
    expect(await (await get(`/svc/api/workflows/${workflow.id}/files/site/index.html?raw`)).text()).toBe(
      '<h1>on s3</h1>',
    );
    expect(await (await get(`/svc/api/workflows/${workflow.id}/log/raw`)).text()).toContain(wholeOutput('live'));
    const root = await request(running.url, '/svc/auth/dev-login', {
      method: 'POST',
      json: { login: 'root' },
      headers: { accept: 'application/json' },
    });
    const rootCookie = root.headers.get('set-cookie')!.split(';')[0]!;
    const restored = await request(running.url, `/svc/api/projects/${gone.id}/restore`, {
      method: 'POST',
      as: rootCookie,
    });
    expect(restored.status).toBe(200);
    expect(await (await get(`/svc/api/projects/${gone.id}/storage/kept.txt`)).text()).toBe('archived');
    expect(await (await get(`/svc/api/workflows/${goneRun.id}/log/raw`)).text()).toContain(wholeOutput('gone'));

    // the prefix now holds objects: another restore there is refused before anything is written
    const second = await emptyInstallation('restored');
    await expect(restoreBackup(second, backupDir)).rejects.toThrow(BackupError);
    await expect(restoreBackup(second, backupDir)).rejects.toThrow(/objects exist under/);
  });
});
