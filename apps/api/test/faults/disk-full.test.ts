import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, rmdirSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDb } from '@svc/db';
import { startApiProcess, logEntry, type ApiProcess, type Message, type TestWorker } from '@svc/test-kit';
import { expectAllSucceed, expectAllUnavailable, startFaultScene, type Probe } from '../support/unavailable';

const TMPFS_SIZE = '48m';

/** Mounts a size-limited tmpfs on a fresh directory; why it cannot, when it cannot (not root, no CAP_SYS_ADMIN). */
function mountTmpfs(): { dir: string; refusal: string | null } {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-disk-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS_SIZE}`, 'tmpfs', dir], { stdio: 'pipe' });
    return { dir, refusal: null };
  } catch (error) {
    rmdirSync(dir);
    const stderr = String((error as { stderr?: Buffer }).stderr ?? error).trim();
    return { dir, refusal: stderr || 'mount failed' };
  }
}

/** Writes zeros to `file` until the file system refuses (ENOSPC): nothing is free afterwards. */
function fill(file: string): void {
  const fd = openSync(file, 'w');
  try {
    for (const size of [1024 * 1024, 4096, 1]) {
      const chunk = Buffer.alloc(size);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw error;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

const { dir: dataDir, refusal } = mountTmpfs();
const describeMounted = refusal === null ? describe : describe.skip;
const OUT_OF_SPACE = 'the server is out of storage space, try again later';

/**
 * The real API with DATA_DIR (and its SQLite database) on a small tmpfs the test fills: every write
 * answers 503 `unavailable` "out of storage space" with Retry-After, a worker's update is refused as
 * `unavailable` (the worker sends it again), health says `degraded`; once the space is freed the same
 * requests succeed without a restart (issue 27).
 */
describeMounted(
  `the API on a full disk (SQLite)${refusal ? ` — skipped: cannot mount a tmpfs: ${refusal}` : ''}`,
  () => {
    let api: ApiProcess;
    let probes: Probe[];
    let worker: TestWorker;
    let workflowId: string;
    let lastSeq: number;
    const filler = path.join(dataDir, 'filler');
    const databaseFile = path.join(dataDir, 'svc.db');

    beforeAll(async () => {
      api = await startApiProcess({
        shared: { databaseUrl: `file:${databaseFile}`, dataDir },
        env: { DATA_DIR_MIN_FREE_MB: '1' },
      });
      ({ workflowId, worker, lastSeq, probes } = await startFaultScene(api, 'Disk'));
    }, 120_000);
    afterAll(async () => {
      worker?.close();
      await api?.close();
      execFileSync('umount', ['-l', dataDir]);
      rmSync(dataDir, { recursive: true, force: true });
    });

    const health = async () => {
      const res = await api.request('/svc/api/health');
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const logUpdate = (seq: number) => worker.store(workflowId, seq, logEntry(`output ${seq}`));

    it('answers writes 503 "out of storage space" with Retry-After, refuses worker updates as unavailable, reports degraded', async () => {
      expect(await health()).toMatchObject({ status: 200, body: { status: 'ok', disk: 'ok' } });
      // Empty the WAL first, so every write must grow a file (SQLite reuses a WAL's space it already has).
      const handle = await createDb({ url: `file:${databaseFile}` });
      await handle.db.$queryRawUnsafe('PRAGMA wal_checkpoint(TRUNCATE)');
      await handle.close();
      fill(filler);

      const messages = await expectAllUnavailable(probes.filter((p) => p.what !== 'list projects'));
      expect(new Set(messages)).toEqual(new Set([OUT_OF_SPACE]));
      const refused: Message = await logUpdate(lastSeq + 1);
      expect(refused).toMatchObject({
        type: 'error',
        workflow_id: workflowId,
        seq: lastSeq + 1,
        error: { code: 'unavailable', message: expect.stringContaining('out of storage space') },
      });
      expect(await health()).toMatchObject({
        status: 200,
        body: { status: 'degraded', disk: 'full', db: 'ok', storage: 'ok' },
      });
      // Reads still work.
      expect((await probes.find((p) => p.what === 'list projects')!.send()).status).toBe(200);
    });

    it('works again once space is freed, without a restart: the same requests and the resent update succeed', async () => {
      rmSync(filler);
      expect(await health()).toMatchObject({ status: 200, body: { status: 'ok', disk: 'ok' } });
      await expectAllSucceed(probes);
      expect(await logUpdate(lastSeq + 1)).toMatchObject({ type: 'ack', seq: lastSeq + 1 });
      expect(api.process.exit).toBeNull();
    });
  },
);
