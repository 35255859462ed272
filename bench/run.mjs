// `pnpm bench`: builds what the benchmarks start, then runs them one after another (never in
// parallel: each measures a server on this machine). USAGE below says how to choose them.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './lib/server-process.mjs';

const USAGE = `Usage: pnpm bench [http] [ws] [files] [scale] [dispatch] [growth] [sockets] [web]

Builds the server, then runs the chosen benchmarks one after another (default: all).
  http    hot REST reads beside a hand-tuned node:http server (bench/api)
  ws      worker updates stored and fanned out to browsers (bench/ws)
  files   streams 2 GiB up and down (bench/files); BENCH_FILE_SIZE (default 2G) and
          BENCH_FILE_BACKENDS (default local,s3) choose what it moves where
  scale   1, 2 and 3 replicas behind haproxy (bench/scale)
  dispatch  svc's dispatch beside graphile-worker, BullMQ and pg-boss (bench/dispatch); PostgreSQL and Redis
  growth  every read as one project grows to 100,000 workflows and one workflow to 1,000,000 log
          entries (bench/api/growth.mjs); BENCH_GROWTH_SIZES (default 100,10000,100000) picks the sizes
  sockets 10,000 idle browsers and 1,000 idle workers on one process beside a bare ws server (bench/sockets)
  web     the web app's first-load bytes on the wire, cold and warm cache, in Chromium (bench/web)
  plan    time from "Start workflow" to the first plan step on screen, in Chromium with a real worker
          and the scripted LLM (bench/web/first-plan-step.mjs); BENCH_PLAN_RUNS (default 10) runs
  -h, --help   show this help
http and ws repeat each case in rounds, svc and its peer alternating, and print the spread (decision 0069):
  BENCH_ROUNDS=N   rounds per case (default 3; --rounds N when running the script itself)
  BENCH_HOG=1      a process keeps one core busy for the whole run (--hog when running the script itself)`;

const BENCHES = {
  http: ['bench/api/http-load.mjs'],
  ws: ['bench/ws/ws-load.mjs'],
  files: [
    'bench/files/transfer.mjs',
    process.env.BENCH_FILE_SIZE ?? '2G',
    '--backends',
    process.env.BENCH_FILE_BACKENDS ?? 'local,s3',
  ],
  scale: ['bench/scale/scale.mjs'],
  dispatch: ['bench/dispatch/dispatch.mjs'],
  growth: ['bench/api/growth.mjs', '--sizes', process.env.BENCH_GROWTH_SIZES ?? '100,10000,100000'],
  sockets: ['bench/sockets/sockets.mjs'],
  web: ['bench/web/first-load.mjs'],
  plan: ['bench/web/first-plan-step.mjs'],
};
const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
const chosen = argv.length ? argv : Object.keys(BENCHES);
const unknown = chosen.filter((name) => !BENCHES[name]);
if (unknown.length) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}\n\n${USAGE}`);
  process.exit(2);
}
const run = (command, args) => {
  const result = spawnSync(command, args, { cwd: repoRoot, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
};
const builds = [
  '--filter=@svc/api',
  '--filter=@svc/test-kit',
  ...(chosen.includes('web') || chosen.includes('plan') ? ['--filter=@svc/web'] : []),
  ...(chosen.includes('plan') ? ['--filter=@svc/worker', '--filter=@svc/scripted-llm'] : []),
];
run('pnpm', ['turbo', 'run', 'build', ...builds, '--output-logs=errors-only']);
// scale runs Debian's haproxy (the load balancer) and wrk (the HTTP client), installed like the tests' tools.
if (chosen.includes('scale')) run('bash', ['-c', 'source scripts/lib/bootstrap.sh && ensure_haproxy && ensure_wrk']);
for (const name of chosen) {
  const [script, ...args] = BENCHES[name];
  console.log(`\n== ${name}: ${script} ${args.join(' ')}`);
  run(process.execPath, [join(repoRoot, script), ...args]);
}
