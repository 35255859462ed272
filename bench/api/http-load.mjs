// Benchmark (issue 11): svc's hot REST reads side by side with a hand-tuned bare node:http server
// doing the same work (bench/api/hand-tuned), on the same database and data, SQLite and PostgreSQL.
// Load comes from `wrk` in its own process (2 threads, 64 keep-alive connections, cookie header).
// Before measuring, one response of each endpoint from both servers must be byte-identical.
//   node bench/api/http-load.mjs [--seconds 10] [--connections 64] [--threads 2]
//                                [--providers sqlite,postgresql] [--endpoints plan,log,...]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, repoRoot, startServerProcess } from '../lib/server-process.mjs';
import { ensureWrk, runWrk } from '../lib/wrk.mjs';
import { seed } from './seed.mjs';
import { benchArgs } from '../lib/args.mjs';

const args = benchArgs();
const seconds = Number(args.seconds ?? 10);
const connections = Number(args.connections ?? 64);
const threads = Number(args.threads ?? 2);
const providers = (args.providers ?? 'sqlite,postgresql').split(',');

const ENDPOINTS = {
  plan: (id) => `/svc/api/workflows/${id}/plan`,
  log: (id) => `/svc/api/workflows/${id}/log`,
  'llm-calls': (id) => `/svc/api/workflows/${id}/llm-calls`,
  projects: () => '/svc/api/projects',
  workflow: (id) => `/svc/api/workflows/${id}`,
};
const endpoints = (args.endpoints ?? Object.keys(ENDPOINTS).join(',')).split(',');

async function startHandTuned(svc) {
  const port = await freePort();
  const child = spawn(process.execPath, [join(repoRoot, 'bench/api/hand-tuned/server.mjs')], {
    env: { ...process.env, DATABASE_URL: svc.databaseUrl, SVC_URL: svc.url, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`hand-tuned server exited with ${code}`)));
    child.stdout.once('data', resolve);
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    stop: () => new Promise((resolve) => (child.kill('SIGTERM'), child.once('exit', resolve))),
  };
}

/** Fails loudly unless both servers answer every endpoint with the same status and the same bytes. */
async function compareBodies(svc, tuned, cookie, workflowId) {
  for (const name of endpoints) {
    const path = ENDPOINTS[name](workflowId);
    const [a, b] = await Promise.all(
      [svc, tuned].map(async (s) => {
        const res = await fetch(`${s.url}${path}`, { headers: { cookie } });
        return { status: res.status, body: await res.text() };
      }),
    );
    if (a.status !== 200 || a.status !== b.status || a.body !== b.body) {
      console.error(`svc:         ${a.status} ${a.body.slice(0, 2000)}`);
      console.error(`hand-tuned:  ${b.status} ${b.body.slice(0, 2000)}`);
      throw new Error(`${path}: svc and the hand-tuned server answer differently`);
    }
  }
}

/** CPU time (user + system) a process has used so far, in ms (Linux /proc; clock ticks of 10 ms). */
function cpuMsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const fmt = (n, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
const rows = [];
ensureWrk();
for (const provider of providers) {
  const svc = await startServerProcess({ provider });
  let tuned;
  try {
    const { cookie, workflowId } = await seed(svc);
    tuned = await startHandTuned(svc);
    await compareBodies(svc, tuned, cookie, workflowId);
    const headers = { Cookie: cookie };
    for (const name of endpoints) {
      const path = ENDPOINTS[name](workflowId);
      const result = {};
      for (const [label, server] of [
        ['svc', svc],
        ['tuned', tuned],
      ]) {
        await runWrk(`${server.url}${path}`, { seconds: 2, connections, threads, headers }); // warm-up
        const cpuBefore = cpuMsOf(server.pid);
        result[label] = await runWrk(`${server.url}${path}`, { seconds, connections, threads, headers });
        result[label].cpuMsPerRequest = (cpuMsOf(server.pid) - cpuBefore) / result[label].requests;
      }
      const errors = result.svc.non2xx + result.svc.socketErrors + result.tuned.non2xx + result.tuned.socketErrors;
      const row = {
        provider,
        endpoint: name,
        svc: result.svc,
        tuned: result.tuned,
        ratio: result.svc.rps / result.tuned.rps,
      };
      rows.push(row);
      console.log(
        `${provider.padEnd(10)} ${name.padEnd(10)} svc ${fmt(row.svc.rps).padStart(6)} req/s p99 ${fmt(row.svc.p99, 1).padStart(6)} ms ${fmt(row.svc.cpuMsPerRequest, 2)} ms CPU/req | ` +
          `hand-tuned ${fmt(row.tuned.rps).padStart(6)} req/s p99 ${fmt(row.tuned.p99, 1).padStart(6)} ms ${fmt(row.tuned.cpuMsPerRequest, 2)} ms CPU/req | ratio ${fmt(row.ratio, 2)}${errors ? ` | ${errors} failed requests (timeouts, non-2xx)` : ''}`,
      );
    }
  } finally {
    await tuned?.stop();
    await svc.stop();
  }
}

console.log(`\nwrk: ${threads} threads, ${connections} connections, ${seconds} s per server and endpoint\n`);
console.log(
  '| endpoint | DB | svc req/s | svc p50 | svc p99 | svc CPU/req | hand-tuned req/s | hand-tuned p50 | hand-tuned p99 | hand-tuned CPU/req | ratio |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(
    `| ${r.endpoint} | ${r.provider} | ${fmt(r.svc.rps)} | ${fmt(r.svc.p50, 1)} ms | ${fmt(r.svc.p99, 1)} ms | ${fmt(r.svc.cpuMsPerRequest, 2)} ms | ` +
      `${fmt(r.tuned.rps)} | ${fmt(r.tuned.p50, 1)} ms | ${fmt(r.tuned.p99, 1)} ms | ${fmt(r.tuned.cpuMsPerRequest, 2)} ms | ${fmt(r.ratio, 2)} |`,
  );
}
