import { EXIT_CONFIG, EXIT_OK, main, parseArgs, type CliIo } from './cli';

describe('parseArgs', () => {
  it('reads --config in its three spellings and --check, ignoring a `--`', () => {
    expect(parseArgs([])).toEqual({ kind: 'run', configPath: undefined, check: false, once: false });
    expect(parseArgs(['-c', 'a.yaml'])).toEqual({ kind: 'run', configPath: 'a.yaml', check: false, once: false });
    expect(parseArgs(['--', '--config', 'a.yaml', '--check'])).toEqual({
      kind: 'run',
      configPath: 'a.yaml',
      check: true,
      once: false,
    });
    expect(parseArgs(['--config=b.yaml'])).toEqual({ kind: 'run', configPath: 'b.yaml', check: false, once: false });
    expect(parseArgs(['--config=a.yaml', '-c', 'b.yaml'])).toEqual({
      kind: 'run',
      configPath: 'b.yaml',
      check: false,
      once: false,
    });
  });

  it('reads --once (one run, then exit)', () => {
    expect(parseArgs(['-c', 'a.yaml', '--once'])).toEqual({
      kind: 'run',
      configPath: 'a.yaml',
      check: false,
      once: true,
    });
  });

  it('answers help and version at the first such flag', () => {
    expect(parseArgs(['-h'])).toEqual({ kind: 'help' });
    expect(parseArgs(['--check', '--help', '--bogus'])).toEqual({ kind: 'help' });
    expect(parseArgs(['-v'])).toEqual({ kind: 'version' });
    expect(parseArgs(['--version', '--help'])).toEqual({ kind: 'version' });
  });

  it('refuses an unknown argument, an operand and a --config without a path', () => {
    expect(parseArgs(['--bogus', '--help'])).toEqual({ kind: 'error', message: 'unknown argument: --bogus' });
    expect(parseArgs(['worker.yaml'])).toEqual({ kind: 'error', message: 'unknown argument: worker.yaml' });
    expect(parseArgs(['--config'])).toEqual({ kind: 'error', message: '--config needs a file path' });
    expect(parseArgs(['-c', ''])).toEqual({ kind: 'error', message: '-c needs a file path' });
    expect(parseArgs(['constructor'])).toEqual({ kind: 'error', message: 'unknown argument: constructor' });
  });
});

describe('main without running a worker', () => {
  function io() {
    const out = { stdout: '', stderr: '' };
    const cliIo: CliIo = {
      stdout: (t) => (out.stdout += t),
      stderr: (t) => (out.stderr += t),
      stopSignal: new Promise<string>(() => {}),
    };
    return { out, cliIo };
  }
  const env = { configPath: undefined, vars: {} };

  it('prints the usage, the version, or the usage after a usage error', async () => {
    const help = io();
    await expect(main(['--help'], env, help.cliIo)).resolves.toBe(EXIT_OK);
    expect(help.out.stdout).toMatch(/^Usage: svc-worker --config <worker.yaml>/);
    const version = io();
    await expect(main(['-v'], env, version.cliIo)).resolves.toBe(EXIT_OK);
    expect(version.out.stdout).toMatch(/^\S+\n$/);
    const bad = io();
    await expect(main(['--nope'], env, bad.cliIo)).resolves.toBe(EXIT_CONFIG);
    expect(bad.out.stderr).toMatch(/^svc-worker: unknown argument: --nope\n\nUsage: svc-worker/);
  });

  it('exits 2 without a config path, and names a config file that is missing', async () => {
    const none = io();
    await expect(main([], env, none.cliIo)).resolves.toBe(EXIT_CONFIG);
    expect(none.out.stderr).toBe('svc-worker: no config file: pass --config <file> or set SVC_WORKER_CONFIG\n');
    const missing = io();
    await expect(main([], { ...env, configPath: '/nonexistent/worker.yaml' }, missing.cliIo)).resolves.toBe(
      EXIT_CONFIG,
    );
    expect(missing.out.stderr).toMatch(/^svc-worker: invalid config \/nonexistent\/worker.yaml:\n {2}/);
  });
});
