// svc as a job queue: a job is a workflow created through REST; a fake worker speaking the worker
// protocol receives its `dispatch`, sends one `status: completed` update and counts the job done at
// its `ack` (the server acks after the commit). Title jobs are answered with a `title` update, as the
// real worker does. The server runs on a fresh PostgreSQL database (bench/lib/server-process.mjs).
import { cpuMsOf, devLogin, startServerProcess } from '../lib/server-process.mjs';
import { openSocket } from '../ws/load-clients.mjs';

const WORKER_PROTOCOL_VERSION = 1;

/** One fake worker: `capacity` runs at once, each completed the moment it arrives. */
async function connectWorker(server, token, name, capacity, tracker) {
  const ws = await openSocket(`${server.url.replace(/^http/, 'ws')}/svc/worker/ws`, {
    authorization: `Bearer ${token}`,
  });
  const send = (message) => ws.send(JSON.stringify(message));
  const jobOf = new Map(); // workflow id -> bench job index, until its completion is acked
  let beat;
  const registered = new Promise((resolve) => {
    ws.on('message', (raw) => {
      const message = JSON.parse(raw.toString());
      if (message.type === 'registered') {
        beat = setInterval(() => send({ type: 'heartbeat' }), (message.heartbeat_seconds * 1000) / 2);
        resolve();
      } else if (message.type === 'dispatch') onDispatch(message);
      else if (message.type === 'ack' && jobOf.has(message.workflow_id)) {
        const job = jobOf.get(message.workflow_id);
        jobOf.delete(message.workflow_id);
        tracker.done(job);
      }
    });
  });
  const onDispatch = (message) => {
    const seq = message.last_seq + 1;
    const update = { type: 'update', workflow_id: message.workflow_id, seq };
    if (message.action === 'generate_title') return send({ ...update, kind: 'title', data: { title: 'bench' } });
    if (message.action !== 'start' && message.action !== 'resume') return;
    const job = Number(/bench job (\d+)/.exec(message.requirement)?.[1]);
    tracker.received(job);
    jobOf.set(message.workflow_id, job);
    send({ ...update, kind: 'status', data: { status: 'completed' } });
  };
  send({
    type: 'register',
    protocol_version: WORKER_PROTOCOL_VERSION,
    name,
    labels: [],
    capacity,
    version: 'bench',
    hostname: 'bench',
  });
  await registered;
  return {
    close: () => {
      clearInterval(beat);
      ws.close();
    },
  };
}

/** `entry`: the built server to run (another build's, to measure before and after a change). */
export async function svcTarget({ nodeArgs = [], env = {}, entry } = {}) {
  const server = await startServerProcess({
    provider: 'postgresql',
    nodeArgs,
    entry,
    env: { WS_WORKER_MESSAGES_PER_SECOND: '1000000', ...env },
  });
  const cookie = await devLogin(server.url);
  const headers = { cookie, origin: server.url, 'content-type': 'application/json' };
  let refused = 0;
  // A 503 (the database was busy: "try again shortly") is sent again, as a client would, and counted.
  const post = async (path, body) => {
    for (;;) {
      const res = await fetch(`${server.url}/svc/api${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      if (res.ok) return res.json();
      if (res.status !== 503) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
      refused++;
      await res.text();
    }
  };
  const { token } = await post('/token', { scope: 'worker' });
  const project = await post('/projects', { name: 'dispatch bench' });
  let workers = [];
  let generation = 0;
  return {
    name: 'svc',
    databaseUrl: server.databaseUrl,
    enqueue: (job) => post(`/projects/${project.id}/workflows`, { requirement: `bench job ${job}` }),
    async startWorkers(count, capacity, tracker) {
      generation++;
      workers = await Promise.all(
        Array.from({ length: count }, (_, i) =>
          connectWorker(server, token, `bench-${generation}-${i}`, capacity, tracker),
        ),
      );
    },
    async stopWorkers() {
      for (const worker of workers) worker.close();
      workers = [];
    },
    serverCpuMs: () => cpuMsOf(server.pid),
    /** creates answered 503 and sent again */
    refusedEnqueues: () => refused,
    stop: () => server.stop(),
  };
}
