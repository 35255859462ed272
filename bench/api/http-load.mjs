// Benchmark (issue 3): GET /svc/api/workflows/{id}/plan and GET /svc/api/projects under 64 concurrent
// keep-alive clients on loopback, on SQLite and PostgreSQL. Usage:
//   node bench/api/http-load.mjs [--seconds 10] [--concurrency 64] [--providers sqlite,postgresql]
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { devLogin, percentile, repoRoot, startServerProcess } from '../lib/server-process.mjs';

const args = Object.fromEntries(
  process.argv
    .slice(2)
    .join(' ')
    .split('--')
    .filter(Boolean)
    .map((a) => a.trim().split(/\s+/)),
);
const seconds = Number(args.seconds ?? 10);
const concurrency = Number(args.concurrency ?? 64);
const providers = (args.providers ?? 'sqlite,postgresql').split(',');
const require = createRequire(join(repoRoot, 'apps/api/package.json'));

async function seed(server) {
  const cookie = await devLogin(server.url);
  const headers = { cookie, origin: server.url, 'content-type': 'application/json' };
  let projectId;
  for (let i = 0; i < 20; i++) {
    const res = await fetch(`${server.url}/svc/api/projects`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: `bench ${i}` }),
    });
    if (!res.ok) throw new Error(`create project: ${res.status} ${await res.text()}`);
    projectId ??= (await res.json()).id;
  }
  const wf = await fetch(`${server.url}/svc/api/projects/${projectId}/workflows`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ requirement: 'Benchmark workflow\nwith a 12-step plan' }),
  });
  if (!wf.ok) throw new Error(`create workflow: ${wf.status} ${await wf.text()}`);
  const workflowId = (await wf.json()).id;
  // A plan snapshot as a worker would have stored it: 12 steps, executing step 5.
  const { createDb } = require('@svc/db');
  const { db, close } = await createDb({ url: server.databaseUrl, poolSize: 1 });
  const steps = Array.from({ length: 12 }, (_, i) => ({
    title: `Step ${i + 1}`,
    description: `Do part ${i + 1} of the work`,
    status: i < 5 ? 'done' : i === 5 ? 'running' : 'pending',
  }));
  await db.agentStateSnapshot.create({
    data: { workflow_id: workflowId, seq: 1, phase: 'executing', current_step: 5, steps, memo: ['note a', 'note b'] },
  });
  await close();
  const check = await fetch(`${server.url}/svc/api/workflows/${workflowId}/plan`, { headers: { cookie } });
  const plan = await check.json();
  if (!Array.isArray(plan) || plan.length !== 12) throw new Error(`unexpected plan: ${JSON.stringify(plan)}`);
  return { cookie, workflowId };
}

async function load(url, cookie) {
  const latencies = [];
  let errors = 0;
  const end = Date.now() + seconds * 1000;
  const client = async () => {
    while (Date.now() < end) {
      const started = performance.now();
      const res = await fetch(url, { headers: { cookie } }).catch(() => null);
      if (!res || !res.ok) errors++;
      await res?.arrayBuffer();
      latencies.push(performance.now() - started);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, client));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    rps: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
    requests: latencies.length,
  };
}

const rows = [];
for (const provider of providers) {
  const server = await startServerProcess({ provider });
  try {
    const { cookie, workflowId } = await seed(server);
    for (const [name, path] of [
      ['GET /workflows/{id}/plan', `/svc/api/workflows/${workflowId}/plan`],
      ['GET /projects', '/svc/api/projects'],
    ]) {
      await load(`${server.url}${path}`, cookie); // warm-up pass, discarded
      const result = await load(`${server.url}${path}`, cookie);
      rows.push({ provider, endpoint: name, ...result });
      console.log(
        `${provider.padEnd(10)} ${name.padEnd(26)} ${result.rps.toFixed(0).padStart(6)} req/s  p50 ${result.p50.toFixed(1)} ms  p99 ${result.p99.toFixed(1)} ms  errors ${result.errors}`,
      );
    }
  } finally {
    await server.stop();
  }
}
console.log(JSON.stringify({ concurrency, seconds, rows }, null, 2));
