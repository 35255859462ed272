#!/usr/bin/env node
// Packs the worker for a build host: one esbuild bundle (every dependency inlined, workspace packages
// included) with the prompts beside it, as an npm tarball with no dependencies to download.
//   node scripts/package.mjs [--out <dir>]   ->  <dir>/svc-worker-<version>.tgz (default: release/)
// Install on the host with `npm install -g ./svc-worker-<version>.tgz`.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const workerDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoDir = path.resolve(workerDir, '../..');
const outIndex = process.argv.indexOf('--out');
const outDir = path.resolve(outIndex > 0 ? process.argv[outIndex + 1] : path.join(workerDir, 'release'));
const { version, description } = JSON.parse(readFileSync(path.join(workerDir, 'package.json'), 'utf8'));
const stage = path.join(outDir, 'svc-worker');

rmSync(stage, { recursive: true, force: true });
mkdirSync(path.join(stage, 'prompts'), { recursive: true });
await build({
  entryPoints: [path.join(workerDir, 'src/cli.ts')],
  outfile: path.join(stage, 'svc-worker.cjs'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // Workspace packages from their TypeScript sources: no build of them needed first.
  conditions: ['development'],
  // ws's optional native helpers: absent, ws falls back to JavaScript.
  external: ['bufferutil', 'utf-8-validate'],
  legalComments: 'none',
  logLevel: 'warning',
});
for (const file of readdirSync(path.join(repoDir, 'prompts')).filter((f) => f.endsWith('.md')))
  copyFileSync(path.join(repoDir, 'prompts', file), path.join(stage, 'prompts', file));
copyFileSync(path.join(workerDir, 'worker.example.yaml'), path.join(stage, 'worker.example.yaml'));
copyFileSync(path.join(workerDir, 'deploy/svc-worker.service'), path.join(stage, 'svc-worker.service'));
copyFileSync(path.join(workerDir, 'README.md'), path.join(stage, 'README.md'));
writeFileSync(
  path.join(stage, 'package.json'),
  `${JSON.stringify(
    {
      name: 'svc-worker',
      version,
      description,
      bin: { 'svc-worker': 'svc-worker.cjs' },
      engines: { node: '>=20.19' },
      os: ['linux'],
      files: ['svc-worker.cjs', 'prompts', 'worker.example.yaml', 'svc-worker.service', 'README.md'],
    },
    null,
    2,
  )}\n`,
);
const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', outDir], {
  cwd: stage,
  encoding: 'utf8',
})
  .trim()
  .split('\n')
  .pop();
console.log(path.join(outDir, tarball));
