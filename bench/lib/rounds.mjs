// Repeated rounds and a busy machine for the side-by-side benchmarks (decision 0069): `--rounds N`
// (or BENCH_ROUNDS) repeats every case with svc and its peer alternating, `--hog` (or BENCH_HOG=1)
// keeps one core busy for the whole run, and the summary gives the spread (min–max) over the rounds.
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';

/** `--rounds N` and `--hog` from benchArgs() output, falling back to BENCH_ROUNDS / BENCH_HOG (pnpm bench). */
export function roundsOptions(args, env = process.env) {
  const rounds = Number(args.rounds ?? env.BENCH_ROUNDS ?? 3);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a positive integer, not ${rounds}`);
  const hog = 'hog' in args || ['1', 'true', 'yes'].includes(env.BENCH_HOG ?? '');
  return { rounds, hog };
}

/** A process spinning on one core until stop() (a busy machine); stopped on exit too. */
export function startCpuHog() {
  const child = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  const kill = () => child.exitCode === null && child.kill('SIGKILL');
  process.once('exit', kill);
  return {
    pid: child.pid,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      kill();
      await exited;
    },
  };
}

/** The one-minute load average at each call, to say in what conditions a run measured. */
export function loadRecorder() {
  const samples = [];
  const sample = () => samples.push(loadavg()[0]);
  sample();
  const timer = setInterval(sample, 5000).unref();
  return {
    sample,
    describe: () => {
      clearInterval(timer);
      sample();
      const { min, max } = spread(samples);
      return `load average ${min.toFixed(1)}–${max.toFixed(1)}`;
    },
  };
}

/** The targets in the order of this round: each goes first in turn (with two, they alternate). */
export const rotate = (items, round) => items.map((_, i) => items[(i + round) % items.length]);

export function spread(values) {
  const finite = values.filter(Number.isFinite);
  return finite.length ? { min: Math.min(...finite), max: Math.max(...finite) } : { min: NaN, max: NaN };
}

/** "min–max" (or the one value when they agree at this precision). */
export function formatSpread(values, digits = 0) {
  const { min, max } = spread(values);
  if (!Number.isFinite(min)) return '-';
  const [a, b] = [min.toFixed(digits), max.toFixed(digits)];
  return a === b ? a : `${a}–${b}`;
}

/** The describing line printed above a summary: rounds, hog, load average, and when. */
export function conditions({ rounds, hog }, load) {
  return `${rounds} round(s), ${hog ? 'with a CPU hog on one core' : 'no hog'}, ${load.describe()}, ${new Date().toISOString()}`;
}
