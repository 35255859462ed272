// Benchmark (issue 11): svc's hot REST reads side by side with a hand-tuned bare node:http server
// doing the same work (bench/api/hand-tuned), on the same database and data, SQLite and PostgreSQL.
// Load comes from `wrk` in its own process (2 threads, 64 keep-alive connections, cookie header).
// Before measuring, one response of each endpoint from both servers must be byte-identical.
// Each endpoint runs --rounds times, svc and the hand-tuned server alternating who goes first, and the
// summary gives the spread over the rounds (decision 0069); --hog keeps one core busy throughout.
//   node bench/api/http-load.mjs [--seconds 10] [--connections 64] [--threads 2] [--rounds 3] [--hog]
//                                [--providers sqlite,postgresql] [--endpoints plan,log,...]
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { cpuMsOf, freePort, repoRoot, startServerProcess } from '../lib/server-process.mjs';
import { ensureWrk, runWrk } from '../lib/wrk.mjs';
import { seed } from './seed.mjs';
import { benchArgs } from '../lib/args.mjs';
import { conditions, formatSpread, loadRecorder, rotate, roundsOptions, startCpuHog } from '../lib/rounds.mjs';

const args = benchArgs();
const seconds = Number(args.seconds ?? 10);
const connections = Number(args.connections ?? 64);
const threads = Number(args.threads ?? 2);
const providers = (args.providers ?? 'sqlite,postgresql').split(',');
const options = roundsOptions(args);

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

const fmt = (n, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '-');

/** One wrk run against one server after a 2 s warm-up, with the server's CPU time per request. */
async function measure(server, path, headers) {
  await runWrk(`${server.url}${path}`, { seconds: 2, connections, threads, headers });
  const cpuBefore = cpuMsOf(server.pid);
  const result = await runWrk(`${server.url}${path}`, { seconds, connections, threads, headers });
  // No answer within the run: its latencies are unknown (wrk prints 0), not zero.
  const unanswered = result.requests === 0 ? { p50: NaN, p99: NaN } : {};
  return { ...result, ...unanswered, cpuMsPerRequest: (cpuMsOf(server.pid) - cpuBefore) / result.requests };
}

const rows = [];
ensureWrk();
const hog = options.hog ? startCpuHog() : null;
const load = loadRecorder();
try {
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
        for (let round = 0; round < options.rounds; round++) {
          const result = {};
          for (const [label, server] of rotate(
            [
              ['svc', svc],
              ['tuned', tuned],
            ],
            round,
          ))
            result[label] = await measure(server, path, headers);
          const row = { provider, endpoint: name, round, ...result, ratio: result.svc.rps / result.tuned.rps };
          rows.push(row);
          const errors = row.svc.non2xx + row.svc.socketErrors + row.tuned.non2xx + row.tuned.socketErrors;
          console.log(
            `${provider.padEnd(10)} ${name.padEnd(10)} #${round + 1} svc ${fmt(row.svc.rps).padStart(6)} req/s p99 ${fmt(row.svc.p99, 1).padStart(6)} ms ${fmt(row.svc.cpuMsPerRequest, 2)} ms CPU/req | ` +
              `hand-tuned ${fmt(row.tuned.rps).padStart(6)} req/s p99 ${fmt(row.tuned.p99, 1).padStart(6)} ms ${fmt(row.tuned.cpuMsPerRequest, 2)} ms CPU/req | ratio ${fmt(row.ratio, 2)}${errors ? ` | ${errors} failed requests (timeouts, non-2xx)` : ''}`,
          );
        }
      }
    } finally {
      await tuned?.stop();
      await svc.stop();
    }
  }
} finally {
  await hog?.stop();
}

console.log(`\nwrk: ${threads} threads, ${connections} connections, ${seconds} s per server, endpoint and round`);
console.log(`${conditions(options, load)}; ranges are min–max over the rounds, ratios within a round\n`);
console.log(
  '| endpoint | DB | svc req/s | hand-tuned req/s | ratio | svc p99 | hand-tuned p99 | p99 ratio | svc CPU/req | hand-tuned CPU/req |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const provider of providers) {
  for (const endpoint of endpoints) {
    const of = rows.filter((r) => r.provider === provider && r.endpoint === endpoint);
    const range = (pick, digits) => formatSpread(of.map(pick), digits);
    console.log(
      `| ${endpoint} | ${provider} | ${range((r) => r.svc.rps)} | ${range((r) => r.tuned.rps)} | ${range((r) => r.ratio, 2)} | ` +
        `${range((r) => r.svc.p99, 1)} ms | ${range((r) => r.tuned.p99, 1)} ms | ${range((r) => r.svc.p99 / r.tuned.p99, 2)} | ` +
        `${range((r) => r.svc.cpuMsPerRequest, 2)} ms | ${range((r) => r.tuned.cpuMsPerRequest, 2)} ms |`,
    );
  }
}
