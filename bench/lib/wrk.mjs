// Runs `wrk` (installed by scripts/lib/bootstrap.sh's ensure_wrk) in its own process and reads its
// summary: requests per second, latency percentiles, errors.
import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './server-process.mjs';

/** Installs wrk from Debian's packages when it is missing. */
export function ensureWrk() {
  const script = `. ${join(repoRoot, 'scripts/lib/bootstrap.sh')} && ensure_wrk`;
  const result = spawnSync('bash', ['-c', script], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error('could not install wrk');
}

const UNIT_MS = { us: 0.001, ms: 1, s: 1000, m: 60_000 };
const toMs = (value) => {
  const [, number, unit] = /^([\d.]+)(us|ms|s|m)$/.exec(value) ?? [];
  if (number === undefined) throw new Error(`unreadable wrk latency: ${value}`);
  return Number(number) * UNIT_MS[unit];
};

/** Parses wrk's `--latency` report. */
export function parseWrk(output) {
  const percentile = (p) => toMs(new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(output)?.[1] ?? 'NaNms');
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? NaN),
    requests: Number(/(\d+) requests in/.exec(output)?.[1] ?? 0),
    p50: percentile(50),
    p99: percentile(99),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0),
    socketErrors: socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
  };
}

/** Drives `url` for `seconds` with `connections` keep-alive connections on `threads` threads. */
export function runWrk(url, { seconds = 10, connections = 64, threads = 2, headers = {} } = {}) {
  const args = [`-t${threads}`, `-c${connections}`, `-d${seconds}s`, '--latency', '--timeout', '30s'];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    execFile('wrk', args, { maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`wrk failed: ${error.message}\n${stderr}`));
      else resolve(parseWrk(stdout));
    });
  });
}
