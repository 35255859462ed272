import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CONFIG_KEYS, loadConfig, parseConfigText } from './config';
import { configProblems } from '../test/support/config-problems';

const ctx = { env: { WORKER_TOKEN: 'tok-from-env', LLM_KEY: 'key-from-env' }, hostname: 'box-1', baseDir: '/etc/svc' };

const minimal = `
server_url: http://localhost:3000/
token: abc
llm:
  base_url: http://localhost:4000/v1
  api_key: sk-test
  model: gpt-test
`;

const problemsOf = (text: string): string[] => configProblems(text, ctx);

describe('worker config', () => {
  it('fills every default for a minimal file', () => {
    const config = parseConfigText(minimal, ctx);
    expect(config).toMatchObject({
      serverUrl: 'http://localhost:3000',
      token: 'abc',
      name: 'box-1',
      labels: [],
      capacity: 1,
      workspaceRoot: '/etc/svc/workspaces',
      jwtPrivateKey: undefined,
      appBaseUrl: undefined,
      promptsDir: undefined,
      toolOutputMaxBytes: 16384,
      commandOutputMaxBytes: 10_485_760,
      commandTimeoutSeconds: 600,
      maxTurnsPerStep: 40,
      updateWindow: 64,
      llm: {
        baseUrl: 'http://localhost:4000/v1',
        apiKey: 'sk-test',
        model: 'gpt-test',
        timeoutSeconds: 120,
        maxRetries: 4,
      },
    });
  });

  it('names a missing nested key as required', () => {
    const problems = problemsOf(minimal.replace('  model: gpt-test\n', ''));
    expect(problems).toEqual(['llm.model: required']);
  });

  it('reports every bad key at once, including unknown ones', () => {
    const problems = problemsOf(`${minimal}capacity: 0\nlabels: [gpu, ""]\ncolour: blue\n`);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^capacity: /),
        expect.stringMatching(/^labels\[1\]: must not be empty/),
        'colour: unknown key',
      ]),
    );
    expect(problems).toHaveLength(3);
  });

  it('resolves token_env and api_key_env from the environment and marks them secret', () => {
    const text = minimal
      .replace('token: abc', 'token_env: WORKER_TOKEN')
      .replace('api_key: sk-test', 'api_key_env: LLM_KEY');
    const config = parseConfigText(text, ctx);
    expect(config.token).toBe('tok-from-env');
    expect(config.llm.apiKey).toBe('key-from-env');
    expect(config.secretEnvNames).toEqual(['WORKER_TOKEN', 'LLM_KEY']);
  });

  it('rejects a token_env naming an unset variable', () => {
    expect(problemsOf(minimal.replace('token: abc', 'token_env: NOPE'))).toEqual([
      'token_env: environment variable NOPE is not set',
    ]);
  });

  it('requires a token one way or the other', () => {
    expect(problemsOf(minimal.replace('token: abc\n', ''))).toEqual([
      'token: required (or token_env naming an environment variable)',
    ]);
  });

  it('rejects a non-http server_url and a non-mapping document', () => {
    expect(problemsOf(minimal.replace('http://localhost:3000/', 'ftp://x'))).toEqual([
      'server_url: must be an http(s) URL',
    ]);
    expect(() => parseConfigText('- a\n- b\n', ctx)).toThrow('config must be a YAML mapping');
  });

  it('reports broken YAML with its line', () => {
    expect(() => parseConfigText('server_url: [unclosed\n', ctx)).toThrow(/not valid YAML \(line \d+\)/);
  });

  it('loads a file and resolves relative paths against its directory', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-config-'));
    const file = path.join(dir, 'worker.yaml');
    writeFileSync(file, `${minimal}workspace_root: ./ws\njwt_private_key: keys/jwt.pem\nprompts_dir: /opt/prompts\n`);
    const config = loadConfig(file, { env: {}, hostname: 'h' });
    expect(config.workspaceRoot).toBe(path.join(dir, 'ws'));
    expect(config.jwtPrivateKey).toBe(path.join(dir, 'keys/jwt.pem'));
    expect(config.promptsDir).toBe('/opt/prompts');
  });

  it('sandboxes commands with bubblewrap by default and hides the config file and the signing key', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-config-'));
    const file = path.join(dir, 'worker.yaml');
    writeFileSync(
      file,
      `${minimal}jwt_private_key: jwt.pem\nsandbox_hidden_paths: [secrets]\ncommand_env: [NPM_CONFIG_REGISTRY]\n`,
    );
    const config = loadConfig(file, { env: {}, hostname: 'h' });
    expect(config.sandbox).toEqual({
      mode: 'bwrap',
      network: true,
      bwrapPath: '/usr/bin/bwrap',
      slirp4netnsPath: '/usr/bin/slirp4netns',
      allowCidrs: [],
      limits: { tmpMaxBytes: 1024 ** 3, memoryMaxBytes: 4 * 1024 ** 3, maxProcesses: 1024 },
      readOnlyPaths: [],
      hiddenPaths: [file, path.join(dir, 'jwt.pem'), path.join(dir, 'secrets')],
    });
    expect(config.commandEnvNames).toEqual(['NPM_CONFIG_REGISTRY']);
  });

  it('takes sandbox: none and sandbox_network: false only as written, and nothing else', () => {
    const config = parseConfigText(`${minimal}sandbox: none\nsandbox_network: false\n`, ctx);
    expect(config.sandbox).toMatchObject({ mode: 'none', network: false });
    expect(problemsOf(`${minimal}sandbox: off\ncommand_env: ["A B"]\n`)).toEqual([
      'sandbox: must be "bwrap" or "none"',
      'command_env[0]: must be an environment variable name',
    ]);
  });

  it('takes the sandbox network and limit keys, refusing CIDRs that are not allowable', () => {
    const text = `${minimal}sandbox_allow_cidrs: [10.20.0.0/16, 192.168.1.7]\nsandbox_tmp_max_bytes: 2097152\nsandbox_memory_max_bytes: 536870912\nsandbox_max_processes: 64\nsandbox_slirp4netns_path: /opt/slirp4netns\n`;
    expect(parseConfigText(text, ctx).sandbox).toMatchObject({
      allowCidrs: ['10.20.0.0/16', '192.168.1.7'],
      slirp4netnsPath: '/opt/slirp4netns',
      limits: { tmpMaxBytes: 2_097_152, memoryMaxBytes: 536_870_912, maxProcesses: 64 },
    });
    expect(
      problemsOf(
        `${minimal}sandbox_allow_cidrs: [10.0.0.1/8, 169.254.169.254/32, 0.0.0.0/0, nope]\nsandbox_max_processes: 0\n`,
      ),
    ).toEqual([
      'sandbox_allow_cidrs[0]: must be an IPv4 CIDR such as 10.20.0.0/16',
      'sandbox_allow_cidrs[1]: overlaps 169.254.0.0/16, which commands never reach',
      'sandbox_allow_cidrs[2]: overlaps 0.0.0.0/8, which commands never reach',
      'sandbox_allow_cidrs[3]: must be an IPv4 CIDR such as 10.20.0.0/16',
      'sandbox_max_processes: Too small: expected number to be >=16',
    ]);
  });

  it('explains a missing file', () => {
    expect(() => loadConfig('/nonexistent/worker.yaml', { env: {}, hostname: 'h' })).toThrow(
      'cannot read config file /nonexistent/worker.yaml: ENOENT',
    );
  });
});

describe('worker config documentation', () => {
  const packageDir = path.join(__dirname, '..');

  it('ships an example that validates', () => {
    const config = loadConfig(path.join(packageDir, 'worker.example.yaml'), {
      env: { SVC_WORKER_TOKEN: 't', OPENAI_API_KEY: 'k' },
      hostname: 'h',
    });
    expect(config).toMatchObject({ name: 'build-box-1', capacity: 2, llm: { model: 'gpt-4.1' } });
  });

  it('documents every key in the README', () => {
    const readme = readFileSync(path.join(packageDir, 'README.md'), 'utf8');
    const undocumented = CONFIG_KEYS.filter((key) => !readme.includes(`| \`${key}\` |`));
    expect(undocumented).toEqual([]);
  });
});
