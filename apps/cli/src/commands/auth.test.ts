import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { readCliEnv } from '../env';
import { main } from '../program';

/** Runs `svc <argv>` in-process with its own config file; no server is needed for what is asked here. */
async function svc(argv: string[], config: string, stdin = '') {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const input = new PassThrough();
  input.end(stdin);
  const code = await main(argv, {
    stdout,
    stderr,
    stdin: input,
    stdinIsTty: false,
    stderrIsTty: false,
    env: readCliEnv({ SVC_CONFIG: config }),
  });
  return { code, stdout: String(stdout.read() ?? ''), stderr: String(stderr.read() ?? '') };
}

describe('svc config and token usage, without a server', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-cli-auth-'));
  const config = path.join(dir, 'config.json');

  it('config path, set, show (token redacted), unset', async () => {
    expect(await svc(['config', 'path'], config)).toEqual({ code: 0, stdout: `${config}\n`, stderr: '' });
    expect(await svc(['config', 'set', 'url', 'http://svc.test'], config)).toMatchObject({
      code: 0,
      stdout: `url set in ${config}\n`,
    });
    const token = 'abcdefghijklmnopqrstuvwxyz';
    expect(JSON.parse((await svc(['--json', 'config', 'set', 'token', token], config)).stdout)).toEqual({
      file: config,
      token: 'abcdefghijkl…(26 chars)',
    });
    expect(JSON.parse(readFileSync(config, 'utf8'))).toEqual({ url: 'http://svc.test', token });
    expect((await svc(['config', 'show'], config)).stdout).toBe(
      `file: ${config}\nurl: http://svc.test  [file]\ntoken: abcdefghijkl…(26 chars)  [file]\nproject: (unset)  [unset]\n`,
    );
    expect(JSON.parse((await svc(['--json', 'config', 'show'], config)).stdout)).toMatchObject({
      url: 'http://svc.test',
      token: 'abcdefghijkl…(26 chars)',
      project: null,
    });
    expect(await svc(['config', 'unset', 'token'], config)).toMatchObject({
      code: 0,
      stdout: `token removed from ${config}\n`,
    });
    expect(JSON.parse(readFileSync(config, 'utf8'))).toEqual({ url: 'http://svc.test' });
  });

  it('config refuses an unknown action or key, a missing value and an invalid one', async () => {
    const keys = 'svc: config key: one of url, token, project\n';
    expect(await svc(['config', 'frob'], config)).toMatchObject({
      code: 2,
      stderr: 'svc: svc config frob: show, path, set or unset\n',
    });
    expect(await svc(['config', 'set', 'colour', 'red'], config)).toMatchObject({ code: 2, stderr: keys });
    expect(await svc(['config', 'unset'], config)).toMatchObject({ code: 2, stderr: keys });
    expect(await svc(['config', 'set', 'url'], config)).toMatchObject({
      code: 2,
      stderr: 'svc: svc config set <key> <value>\n',
    });
    expect((await svc(['config', 'set', 'url', 'not a url'], config)).stderr).toMatch(/^svc: url: /);
  });

  it('token create and revoke refuse what they cannot do before asking the server', async () => {
    const refused = async (argv: string[], stdin = '') => {
      const result = await svc(argv, config, stdin);
      return [result.code, result.stderr];
    };
    expect(await refused(['token', 'create', '--dev-user', 'a', '--session-token', 's'])).toEqual([
      2,
      'svc: --dev-user or --session-token, not both\n',
    ]);
    expect(await refused(['token', 'create', '--session-token', '-'])).toEqual([2, 'svc: no token on stdin\n']);
    expect(await refused(['token', 'create', '--ttl', 'soon', '--session-token', 's'])).toEqual([
      2,
      'svc: --ttl soon: give seconds or a number with s, m, h, d or w (e.g. 30d)\n',
    ]);
    expect(await refused(['token', 'create'])).toEqual([
      2,
      'svc: not signed in: pass --session-token or --dev-user, or run `svc login`\n',
    ]);
    expect(await refused(['token', 'revoke'])).toEqual([
      2,
      'svc: no token to revoke: give it as an argument, - for stdin, or sign in\n',
    ]);
    expect(await refused(['login', '--ttl', '1y', '--url', 'http://svc.test'])).toEqual([
      2,
      'svc: --ttl 1y: give seconds or a number with s, m, h, d or w (e.g. 30d)\n',
    ]);
  });
});
