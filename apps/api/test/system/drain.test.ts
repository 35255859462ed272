import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { EventStream, openBrowserSocket, Session, SlowDownload, startApiProcess, type ApiProcess } from '@svc/test-kit';

// Issue 27: SIGTERM drains (decision 0061). A real server process is stopped while a large download,
// an event stream and a browser socket are open: the download finishes in full, the stream ends
// cleanly, the socket is told "going away" (1001), and the process exits once the download is done.
const TIMEOUT_MS = 120_000;
const BIG_BYTES = 48 * 1024 * 1024;

/** A workflow with a 48 MiB workspace file; returns its download URL and the file's hash. */
async function bigFile(api: ApiProcess, alice: Session): Promise<{ url: string; sha256: string; workflow: string }> {
  const project = await alice.json<{ id: string }>('/projects', { json: { name: 'drain' } });
  const workflow = await alice.json<{ id: string }>(`/projects/${project.id}/workflows`, {
    json: { requirement: 'serve a big file' },
  });
  const dir = path.join(api.dataDir, 'workspaces', project.id, workflow.id);
  mkdirSync(dir, { recursive: true });
  const content = randomBytes(BIG_BYTES);
  writeFileSync(path.join(dir, 'big.bin'), content);
  return {
    url: `${api.url}/svc/api/workflows/${workflow.id}/files/big.bin`,
    sha256: createHash('sha256').update(content).digest('hex'),
    workflow: workflow.id,
  };
}

/** A line the process logs from now on whose message is `msg`. */
const logged = (api: ApiProcess, msg: string) => api.process.nextLine((line) => line.includes(`"msg":"${msg}"`));

describe('SIGTERM drains the server', () => {
  let api: ApiProcess | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  }, TIMEOUT_MS);

  it(
    'finishes a large download in full, ends event streams, closes browser sockets with 1001, then exits 0',
    async () => {
      api = await startApiProcess({ env: { SHUTDOWN_GRACE_SECONDS: '300' } });
      const alice = await Session.signIn(api.url, 'alice');
      const file = await bigFile(api, alice);
      const download = new SlowDownload(file.url, alice.credential);
      await download.started;
      const stream = await EventStream.open(api.url, `/svc/api/workflows/${file.workflow}/events`, alice.credential);
      await stream.next((e) => e.event === 'subscribed');
      const browser = await openBrowserSocket(api, alice.credential);

      const stopped = logged(api, 'draining: new connections refused, sockets told to go away');
      api.process.child.kill('SIGTERM');
      await stopped;
      // The socket is told to go away; the stream ends with `unavailable` (its clients reconnect elsewhere).
      expect((await browser.inbox.whenClosed()).code).toBe(1001);
      await stream.closed();
      expect(stream.dataOf('error').map((data) => data.error.code)).toEqual(['unavailable']);
      // New connections are refused from now on; the download in flight keeps the process alive.
      await expect(fetch(`${api.url}/svc/api/health`)).rejects.toThrow();
      expect(api.process.exit).toBeNull();

      const finished = logged(api, 'drained: everything in flight finished');
      download.resume();
      expect(await download.done).toBe(BIG_BYTES);
      expect(download.hash.digest('hex')).toBe(file.sha256);
      await finished;
      expect(await api.process.exited).toEqual({ code: 0, signal: null });
    },
    TIMEOUT_MS,
  );

  it(
    'fails readiness at once while liveness still answers, for the delay before it stops accepting',
    async () => {
      // A delay far longer than the test: what it shows is the state during it.
      api = await startApiProcess({ env: { SHUTDOWN_DELAY_SECONDS: '600' } });
      const ready = await fetch(`${api.url}/svc/api/ready`);
      expect([ready.status, ((await ready.json()) as { status: string }).status]).toEqual([200, 'ready']);

      const draining = logged(api, 'draining: readiness fails from now on');
      api.process.child.kill('SIGTERM');
      await draining;
      const notReady = await fetch(`${api.url}/svc/api/ready`);
      expect([notReady.status, ((await notReady.json()) as { status: string }).status]).toEqual([503, 'draining']);
      const health = await fetch(`${api.url}/svc/api/health`);
      expect([health.status, ((await health.json()) as { status: string }).status]).toEqual([200, 'ok']);
      // Keep-alive clients are asked to take their next request elsewhere.
      expect(health.headers.get('connection')).toBe('close');
      // A second signal does not wait for the drain.
      api.process.child.kill('SIGTERM');
      expect(await api.process.exited).toEqual({ code: null, signal: 'SIGTERM' });
    },
    TIMEOUT_MS,
  );

  it(
    'cuts what is still in flight when the grace period is over, and exits',
    async () => {
      api = await startApiProcess({ env: { SHUTDOWN_GRACE_SECONDS: '0.2' } });
      const alice = await Session.signIn(api.url, 'alice');
      const file = await bigFile(api, alice);
      // A reader that never reads again: the download can never finish.
      const stuck = new SlowDownload(file.url, alice.credential);
      await stuck.started;
      const cut = logged(api, 'grace period over: cutting what is still in flight');
      api.process.child.kill('SIGTERM');
      await cut;
      expect(await api.process.exited).toEqual({ code: 0, signal: null });
      stuck.resume();
      await expect(stuck.done).rejects.toThrow(/cut/);
    },
    TIMEOUT_MS,
  );
});
