import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_SANDBOX_SETTINGS, Sandbox, SANDBOX_HOME, type WrapRequest } from './sandbox';

/** The bwrap options of one wrapped command (what follows the bwrap path in the gate's argv). */
async function bwrapArgsOf(sandbox: Sandbox, request: WrapRequest): Promise<string[]> {
  const spawn = await sandbox.wrap(request);
  await spawn.lifecycle?.release();
  return spawn.args.slice(spawn.args.indexOf(sandbox.settings.bwrapPath) + 1);
}

/** Index of the option `name` with exactly these operands. */
const optionAt = (args: string[], name: string, ...operands: string[]): number =>
  args.findIndex((a, i) => a === name && operands.every((op, j) => args[i + 1 + j] === op));

describe('Sandbox (bwrap) command line', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-sandbox-args-'));
  const shown = path.join(dir, 'shown');
  mkdirSync(path.join(shown, 'nested'), { recursive: true });
  mkdirSync(path.join(shown, 'secret-dir'));
  writeFileSync(path.join(shown, 'secret.key'), 'key');
  const sandbox = new Sandbox({
    ...DEFAULT_SANDBOX_SETTINGS,
    readOnlyPaths: [shown, path.join(shown, 'nested'), path.join(dir, 'absent')],
    hiddenPaths: [path.join(shown, 'secret-dir'), path.join(shown, 'secret.key'), path.join(dir, 'unmounted')],
  });
  const request = {
    command: 'ls -la',
    cwd: path.join(dir, 'ws', 'wf-1'),
    env: { PATH: '/usr/bin:/bin' },
    workspaceRoot: path.join(dir, 'ws'),
  };

  it('binds each read-only path that exists once, and hides secrets after the bind that shows them', async () => {
    const args = await bwrapArgsOf(sandbox, request);
    const bind = optionAt(args, '--ro-bind', shown, shown);
    expect(bind).toBeGreaterThan(-1);
    expect(args).not.toContain(path.join(shown, 'nested'));
    expect(args).not.toContain(path.join(dir, 'absent'));
    const dirCover = optionAt(args, '--tmpfs', path.join(shown, 'secret-dir'));
    const fileCover = optionAt(args, '--ro-bind', '/dev/null', path.join(shown, 'secret.key'));
    expect(dirCover).toBeGreaterThan(bind);
    expect(fileCover).toBeGreaterThan(bind);
    // Nothing mounted shows it: no cover needed.
    expect(args).not.toContain(path.join(dir, 'unmounted'));
    // Always hidden, /etc being mounted.
    expect(optionAt(args, '--ro-bind', '/dev/null', '/etc/shadow')).toBeGreaterThan(
      optionAt(args, '--ro-bind', '/etc', '/etc'),
    );
  });

  it('binds a read-only path below /tmp inside the private /tmp, so the private /tmp does not cover it', async () => {
    // Under /tmp itself, whatever TMPDIR says (a checkout cloned there, its tools bound read-only).
    const checkout = mkdtempSync('/tmp/svc-sandbox-checkout-');
    const args = await bwrapArgsOf(new Sandbox({ ...DEFAULT_SANDBOX_SETTINGS, readOnlyPaths: [checkout] }), request);
    const privateTmp = optionAt(args, '--tmpfs', '/tmp');
    expect(privateTmp).toBeGreaterThan(-1);
    expect(optionAt(args, '--ro-bind', checkout, checkout)).toBeGreaterThan(privateTmp);
    // /etc is not below /tmp: bound with the system paths, before.
    expect(optionAt(args, '--ro-bind', '/etc', '/etc')).toBeLessThan(privateTmp);
    rmSync(checkout, { recursive: true });
  });

  it('masks the workspace root before binding the one workspace writable, and ends with the command', async () => {
    const args = await bwrapArgsOf(sandbox, request);
    const mask = optionAt(args, '--tmpfs', request.workspaceRoot);
    const bind = optionAt(args, '--bind', request.cwd, request.cwd, '--chdir', request.cwd);
    expect(mask).toBeGreaterThan(optionAt(args, '--tmpfs', path.join(shown, 'secret-dir')));
    expect(bind).toBeGreaterThan(mask);
    expect(args.slice(-4)).toEqual(['--', 'bash', '-c', 'ls -la']);
    expect(args.slice(0, 3)).toEqual(['--die-with-parent', '--unshare-user', '--uid']);
    const size = String(DEFAULT_SANDBOX_SETTINGS.limits.tmpMaxBytes);
    expect(
      optionAt(args, '--size', size, '--tmpfs', '/tmp', '--size', size, '--tmpfs', '/var/tmp', '--dir', SANDBOX_HOME),
    ).toBeGreaterThan(optionAt(args, '--proc', '/proc', '--dev', '/dev'));
  });

  it('mounts no workspace for the start-up probe', async () => {
    const args = await bwrapArgsOf(sandbox, { ...request, cwd: undefined, workspaceRoot: undefined });
    expect(args).not.toContain('--bind');
    expect(args).not.toContain('--chdir');
    expect(args.slice(-4)).toEqual(['--', 'bash', '-c', 'ls -la']);
  });
});
