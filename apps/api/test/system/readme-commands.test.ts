import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '@svc/test-kit';
// @ts-expect-error: a plain ES module of the repository's tools, without types
import { outDirFromArgs } from '../../../../tools/pack-cli.mjs';

const run = promisify(execFile);
const root = repoRoot();

/** Exit code and output of a command that may fail. */
async function exitOf(command: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd: root });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Issue 22: commands a newcomer runs from the READMEs leave the repository's own checks passing. */
describe('repository commands from the READMEs', () => {
  it.each(['cli', 'worker'])(
    'the release folder of `pnpm --filter @svc/%s package` is left alone by `pnpm format:check` and git',
    async (app) => {
      const release = outDirFromArgs(path.join(root, 'apps', app), []) as string;
      const made = !existsSync(release);
      // What npm pack writes there: unformatted JSON (an unignored one fails the formatting check).
      const probe = path.join(release, `format-probe-${process.pid}`, 'package.json');
      mkdirSync(path.dirname(probe), { recursive: true });
      writeFileSync(probe, '{"name":"probe",   "bin":{}}');
      try {
        expect(await exitOf('pnpm', ['exec', 'prettier', '--check', path.relative(root, probe)])).toMatchObject({
          code: 0,
        });
        expect((await exitOf('git', ['check-ignore', '--quiet', path.relative(root, probe)])).code).toBe(0);
      } finally {
        rmSync(made ? release : path.dirname(probe), { recursive: true, force: true });
      }
    },
  );

  it('`pnpm bench --help` prints the usage and exits 0 without building or running anything', async () => {
    const help = await exitOf('pnpm', ['--silent', 'bench', '--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(
      /^Usage: pnpm bench \[http\] \[ws\] \[files\] \[scale\] \[dispatch\] \[growth\] \[sockets\] \[web\]\n/,
    );
    expect(await exitOf('pnpm', ['--silent', 'bench', 'nope'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('unknown benchmark(s): nope'),
    });
  });
});
