#!/usr/bin/env node
// Packs the worker for a build host: one esbuild bundle (every dependency inlined, workspace packages
// included) with the prompts beside it, as an npm tarball with no dependencies to download.
//   node scripts/package.mjs [--out <dir>]   ->  <dir>/svc-worker-<version>.tgz (default: release/)
// Install on the host with `npm install -g ./svc-worker-<version>.tgz`. The packing itself is shared
// with the CLI: tools/pack-cli.mjs.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { outDirFromArgs, packCli } from '../../../tools/pack-cli.mjs';

const workerDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoDir = path.resolve(workerDir, '../..');
const prompts = readdirSync(path.join(repoDir, 'prompts'))
  .filter((f) => f.endsWith('.md'))
  .map((file) => [path.join(repoDir, 'prompts', file), `prompts/${file}`]);
const tarball = await packCli({
  build,
  appDir: workerDir,
  entry: 'src/cli.ts',
  name: 'svc-worker',
  outDir: outDirFromArgs(workerDir),
  files: [
    ...prompts,
    [path.join(workerDir, 'worker.example.yaml'), 'worker.example.yaml'],
    [path.join(workerDir, 'deploy/svc-worker.service'), 'svc-worker.service'],
    [path.join(workerDir, 'README.md'), 'README.md'],
  ],
  // ws's optional native helpers: absent, ws falls back to JavaScript.
  external: ['bufferutil', 'utf-8-validate'],
  os: ['linux'],
});
console.log(tarball);
