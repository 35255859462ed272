#!/usr/bin/env node
// Packs the CLI for any host: one esbuild bundle (every dependency inlined) and its README, as an npm
// tarball with no dependencies to download.
//   node scripts/package.mjs [--out <dir>]   ->  <dir>/svc-cli-<version>.tgz (default: release/)
// Install with `npm install -g ./svc-cli-<version>.tgz`; the command is `svc`.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { outDirFromArgs, packCli } from '../../../tools/pack-cli.mjs';

const cliDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tarball = await packCli({
  build,
  appDir: cliDir,
  entry: 'src/cli.ts',
  name: 'svc-cli',
  bin: 'svc',
  outDir: outDirFromArgs(cliDir),
  files: [[path.join(cliDir, 'README.md'), 'README.md']],
});
console.log(tarball);
