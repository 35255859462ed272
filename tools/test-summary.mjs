// Prints one closing line for all jest runs: "tests: N passed, N failed" (CI reads it).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const totals = { passed: 0, failed: 0, skipped: 0 };
const packages = [];
const durations = [];
for (const group of ['apps', 'packages']) {
  for (const name of readdirSync(group)) {
    const file = join(group, name, '.test-results', 'counts.json');
    if (!existsSync(file)) continue;
    const counts = JSON.parse(readFileSync(file, 'utf8'));
    const unexited = counts.unexited ? ` (jest did not exit: ${counts.unexited.join('; ')})` : '';
    packages.push(`${group}/${name}: ${counts.passed} passed, ${counts.failed} failed${unexited}`);
    for (const key of Object.keys(totals)) totals[key] += counts[key] ?? 0;
    const timings = join(group, name, '.test-results', 'durations.json');
    if (existsSync(timings))
      for (const { file, seconds } of JSON.parse(readFileSync(timings, 'utf8')))
        durations.push({ file: join(group, name, file), seconds });
  }
}
durations.sort((a, b) => b.seconds - a.seconds);
console.log('slowest test files (seconds, in their own jest process):');
for (const { file, seconds } of durations.slice(0, 15)) console.log(`  ${seconds.toFixed(1).padStart(7)}  ${file}`);
console.log(packages.join('\n'));
console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed > 0 || totals.passed === 0 ? 1 : 0);
