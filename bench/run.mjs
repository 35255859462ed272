// `pnpm bench`: builds what the benchmarks start, then runs them one after another (never in
// parallel: each measures a server on this machine). Pass names to run a subset:
//   pnpm bench [http] [ws] [files] [scale]   (default: all four; files streams 2 GiB, see bench/files;
//                                            scale: 1, 2 and 3 replicas behind haproxy, see bench/scale)
// files: BENCH_FILE_SIZE (default 2G) and BENCH_FILE_BACKENDS (default local,s3) choose what it moves where.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './lib/server-process.mjs';

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
};
const chosen = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(BENCHES);
const unknown = chosen.filter((name) => !BENCHES[name]);
if (unknown.length) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; choose from ${Object.keys(BENCHES).join(', ')}`);
  process.exit(2);
}
const run = (command, args) => {
  const result = spawnSync(command, args, { cwd: repoRoot, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
};
run('pnpm', ['turbo', 'run', 'build', '--filter=@svc/api', '--filter=@svc/test-kit', '--output-logs=errors-only']);
// scale runs Debian's haproxy (the load balancer) and wrk (the HTTP client), installed like the tests' tools.
if (chosen.includes('scale')) run('bash', ['-c', 'source scripts/lib/bootstrap.sh && ensure_haproxy && ensure_wrk']);
for (const name of chosen) {
  const [script, ...args] = BENCHES[name];
  console.log(`\n== ${name}: ${script} ${args.join(' ')}`);
  run(process.execPath, [join(repoRoot, script), ...args]);
}
