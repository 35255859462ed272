// Packs one of svc's command-line apps for a host without the repository: an esbuild bundle (every
// dependency inlined, workspace packages from their TypeScript sources) plus the files it needs,
// as an npm tarball with no dependencies to download. Used by apps/worker and apps/cli
// (`scripts/package.mjs`); install the result with `npm install -g ./<name>-<version>.tgz`.
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * @param {object} options
 * @param {(options: object) => Promise<unknown>} options.build  esbuild's `build` (resolved from the app, which depends on esbuild)
 * @param {string} options.appDir   the app's directory (its package.json gives version and description)
 * @param {string} options.entry    entry point, relative to appDir (e.g. src/cli.ts)
 * @param {string} options.name     package name (e.g. svc-worker)
 * @param {string} [options.bin]    command name (default: the package name)
 * @param {string} options.outDir   where the tarball goes (a `<name>/` staging folder is made there)
 * @param {Array<[string, string]>} [options.files]  [source path, path in the package] pairs (files or folders)
 * @param {string[]} [options.external]  modules left out of the bundle
 * @param {string[]} [options.os]   the package's `os` field
 * @returns {Promise<string>} the tarball's path
 */
export async function packCli({ build, appDir, entry, name, bin = name, outDir, files = [], external = [], os }) {
  const { version, description } = JSON.parse(readFileSync(path.join(appDir, 'package.json'), 'utf8'));
  const stage = path.join(outDir, name);
  const bundle = `${bin}.cjs`;
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  await build({
    entryPoints: [path.join(appDir, entry)],
    outfile: path.join(stage, bundle),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    // Workspace packages from their TypeScript sources: no build of them needed first.
    conditions: ['development'],
    external,
    legalComments: 'none',
    logLevel: 'warning',
  });
  for (const [source, target] of files) {
    const dest = path.join(stage, target);
    mkdirSync(path.dirname(dest), { recursive: true });
    if (source.endsWith('/')) cpSync(source, dest, { recursive: true });
    else copyFileSync(source, dest);
  }
  const topLevel = [...new Set(files.map(([, target]) => target.split('/')[0]))];
  writeFileSync(
    path.join(stage, 'package.json'),
    `${JSON.stringify(
      {
        name,
        version,
        description,
        bin: { [bin]: bundle },
        engines: { node: '>=20.19' },
        ...(os ? { os } : {}),
        files: [bundle, ...topLevel],
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
  return path.join(outDir, tarball);
}

/** `--out <dir>` of a package script, else `<appDir>/release`. */
export function outDirFromArgs(appDir, argv = process.argv) {
  const index = argv.indexOf('--out');
  return path.resolve(index > 0 ? argv[index + 1] : path.join(appDir, 'release'));
}
