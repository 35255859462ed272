// Prints one closing line for all jest runs: "tests: N passed, N failed" (CI reads it).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const totals = { passed: 0, failed: 0, skipped: 0 };
const packages = [];
for (const group of ['apps', 'packages']) {
  for (const name of readdirSync(group)) {
    const file = join(group, name, '.test-results', 'counts.json');
    if (!existsSync(file)) continue;
    const counts = JSON.parse(readFileSync(file, 'utf8'));
    const unexited = counts.unexited ? ` (jest did not exit: ${counts.unexited.join('; ')})` : '';
    packages.push(`${group}/${name}: ${counts.passed} passed, ${counts.failed} failed${unexited}`);
    for (const key of Object.keys(totals)) totals[key] += counts[key] ?? 0;
  }
}
console.log(packages.join('\n'));
console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed > 0 || totals.passed === 0 ? 1 : 0);
