// The dispatch benchmark's table: each figure as its range over the rounds (min–max), and each peer's
// with svc's ratio to it, taken round by round (svc / peer, in the same round).

const range = (values, digits) => {
  const shown = values.filter((v) => v !== undefined && Number.isFinite(v));
  if (shown.length === 0) return '';
  const lo = Math.min(...shown).toFixed(digits);
  const hi = Math.max(...shown).toFixed(digits);
  return lo === hi ? lo : `${lo}–${hi}`;
};

const ROWS = [
  ['latency p50, ms', (r) => r.p50, 1],
  ['latency p99, ms', (r) => r.p99, 1],
  ['throughput, jobs/s', (r) => r.throughput, 0],
  ['drain of the backlog, jobs/s', (r) => r.drain, 0],
  ['enqueue rate, 1 in flight, /s', (r) => r.enqueueRates[0], 0],
  ['enqueue rate, 4 in flight, /s', (r) => r.enqueueRates[1], 0],
  ['enqueue rate, 16 in flight, /s', (r) => r.enqueueRates[2], 0],
  ['server CPU per job, ms', (r) => r.serverCpuPerJob, 2],
  ['database CPU per job, ms', (r) => r.databaseCpuPerJob, 2],
  ['enqueues refused (503) and sent again', (r) => r.refusedEnqueues, 0],
];

/** `results`: one `{ [target]: measured }` per round; svc is the first target. */
export function printTable(results) {
  const names = Object.keys(results[0]);
  const peers = names.filter((name) => name !== 'svc');
  console.log(`\n| ${results.length} rounds | ${names.join(' | ')} | ${peers.map((p) => `svc / ${p}`).join(' | ')} |`);
  console.log(`|---|${names.map(() => '---:').join('|')}|${peers.map(() => '---:').join('|')}|`);
  for (const [label, pick, digits] of ROWS) {
    const cells = names.map((name) =>
      range(
        results.map((round) => pick(round[name])),
        digits,
      ),
    );
    const ratios = peers.map((peer) =>
      range(
        results.map((round) => pick(round.svc) / pick(round[peer])),
        2,
      ),
    );
    console.log(`| ${label} | ${cells.join(' | ')} | ${ratios.join(' | ')} |`);
  }
  console.log(
    '\nserver CPU: the svc server process (the peers run their workers in the bench process); database CPU: the ' +
      "PostgreSQL backends of the target's database (Redis's own for BullMQ). Goals (issue 28): svc / graphile-worker " +
      'p99 ≤ 2, throughput ≥ 0.5; svc enqueue rate at 16 ≥ at 1.',
  );
}
