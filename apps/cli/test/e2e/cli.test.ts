import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { BrowserEvent, Workflow } from '@svc/protocol';
import type { ScriptedHandler } from '@svc/scripted-llm';
import { startApiProcess } from '@svc/test-kit';
import { CLI_VERSION } from '../../src/version';
import { phaseOf, plan, scriptedAgent } from '@svc/scripted-llm';
import { closeStackAfterSuite, E2E_TIMEOUT_MS, startStack, type CliStack } from '../support/stack';
import type { CliResult } from '../support/cli-process';

const exec = promisify(execFile);
const QUESTION = 'Which colour should the heading have?';

/** Each requirement carries a marker that picks what the scripted agent does. */
const hello = scriptedAgent({
  title: 'Hello file',
  planning: [plan('Write hello', 'Show it')],
  steps: {
    1: [
      { name: 'execute_on_worker', arguments: { command: 'printf "hello from svc\\n" > hello.txt; cat hello.txt' } },
      { name: 'advance_step', arguments: { summary: 'hello written' } },
    ],
  },
});
const ask = scriptedAgent({
  title: 'Coloured heading',
  planning: [plan('Choose the colour', 'Write the page')],
  steps: { 1: [{ name: 'ask_user', arguments: { question: QUESTION } }] },
});
const failing = scriptedAgent({ planning: [plan('Break', 'Recover')] });
/** While true, the `[fail]` workflows' first step gets an LLM error the worker does not retry. */
let broken = true;

/** Step 1 asks; once answered, it writes the answer it was given to colour.txt. */
const askThenWrite: ScriptedHandler = (request) => {
  if (phaseOf(request) !== 'execution' || request.stepNumber !== 1 || request.turn === 0) return ask(request);
  const answer = /The user answered: (.*)$/s.exec(request.lastMessage)?.[1];
  if (request.turn === 1)
    return { tool_calls: [{ name: 'write_file', arguments: { path: 'colour.txt', content: answer ?? '?' } }] };
  return { tool_calls: [{ name: 'advance_step', arguments: { summary: 'colour chosen' } }] };
};

const failFirstStep: ScriptedHandler = (request) => {
  if (broken && phaseOf(request) === 'execution' && request.stepNumber === 1)
    return { error: { status: 400, message: 'scripted failure' } };
  return failing(request);
};

const handler: ScriptedHandler = (request) => {
  const text = JSON.stringify(request.body.messages);
  if (text.includes('[ask]')) return askThenWrite(request);
  if (text.includes('[fail]')) return failFirstStep(request);
  return hello(request);
};

describe('svc (the CLI as a process) against a real server, worker and scripted LLM', () => {
  let stack: CliStack;
  /** the completed `[hello]` workflow, for the logs, report and files tests */
  let helloId: string;

  beforeAll(async () => {
    stack = await startStack(handler);
  }, E2E_TIMEOUT_MS);
  closeStackAfterSuite(() => stack);

  const svc = (args: string[], expected: number, options?: Parameters<CliStack['svc']>[1]) =>
    stack.svcExiting(args, expected, options);
  const json = <T>(result: CliResult): T => JSON.parse(result.stdout) as T;
  const ndjson = (result: CliResult) =>
    result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const fileOf = async (id: string, rel: string) => (await svc(['files', 'get', id, rel, '-o', '-'], 0)).stdout;

  it(
    'run --follow prints the plan, steps and log lines as they happen, in order, and exits 0 when completed',
    async () => {
      // a project made with the CLI
      const made = await svc(['projects', 'create', 'made-by-cli'], 0);
      const listed = json<{ id: string; name: string }[]>(await svc(['--json', 'projects'], 0));
      expect(listed).toEqual(
        expect.arrayContaining([{ ...listed.find((p) => p.id === made.stdout.trim())!, name: 'made-by-cli' }]),
      );
      // the project by name; the requirement from stdin
      const result = await svc(['run', '--project', 'ci', '-', '--follow'], 0, {
        input: 'Write a greeting [hello]\nsecond line kept',
      });
      const lines = result.stdout.split('\n');
      const at = (match: (line: string) => boolean, what: string) => {
        const index = lines.findIndex(match);
        if (index < 0) throw new Error(`no line ${what} in\n${result.stdout}`);
        return index;
      };
      // a call that changes the plan is printed under the step that made it (it is reported after the change)
      const order = [
        at((l) => l.startsWith('  $ submit_plan'), 'the plan submitted'),
        at((l) => l === 'plan (2 steps):', 'plan'),
        at((l) => l === '  1. Write hello', 'plan step 1'),
        at((l) => l === '==> step 1/2: Write hello', 'step 1 running'),
        at((l) => l.startsWith('  $ execute_on_worker') && l.includes('hello.txt'), 'the command'),
        at((l) => l === '    | hello from svc', 'its output'),
        at((l) => l === '  $ advance_step summary: hello written', 'step 1 advanced'),
        at((l) => l === '<== step 1/2 done: Write hello', 'step 1 done'),
        at((l) => l === '==> step 2/2: Show it', 'step 2 running'),
        at((l) => l === 'status: completed', 'the status'),
        at((l) => /^workflow \S+ completed/.test(l), 'the summary'),
      ];
      expect([...order].sort((a, b) => a - b)).toEqual(order);
      helloId = /^workflow (\S+) completed/m.exec(result.stdout)![1]!;
      expect((await stack.workflow(helloId)).requirement).toBe('Write a greeting [hello]\nsecond line kept');
    },
    E2E_TIMEOUT_MS,
  );

  it(
    '--json: every event once, in seq order, then a result line',
    async () => {
      const result = await svc(['--json', 'run', '-p', stack.projectId, 'JSON please [hello]', '--follow'], 0);
      const lines = ndjson(result);
      const events = lines.slice(0, -1) as unknown as BrowserEvent[];
      const last = lines.at(-1) as { type: string; exit_code: number; workflow: Workflow };
      expect(last).toMatchObject({ type: 'result', exit_code: 0, workflow: { status: 'completed' } });
      // The whole stream from the first event: contiguous seqs, none missed, none twice.
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      expect(events.every((e) => e.workflow_id === last.workflow.id)).toBe(true);
      const types = new Set(events.map((e) => e.type));
      for (const type of ['workflow_status', 'plan_step_status', 'log_entry', 'workflow_update'])
        expect(types).toContain(type);
      const statuses = events
        .filter((e) => e.type === 'workflow_status')
        .map((e) => (e.data as { status: string }).status);
      expect(statuses.at(-1)).toBe('completed');
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'exits 1 when the workflow fails, and retry --follow resumes it to completion (exit 0) without reprinting the past',
    async () => {
      broken = true;
      const failed = await svc(['--json', 'run', '-p', 'ci', 'Break it [fail]', '--follow'], 1);
      const lines = ndjson(failed);
      const result = lines.at(-1) as { exit_code: number; workflow: Workflow };
      expect(result).toMatchObject({ exit_code: 1, workflow: { status: 'failed' } });
      expect(result.workflow.error).toContain('scripted failure');
      const lastSeq = Math.max(...lines.slice(0, -1).map((e) => e.seq as number));

      broken = false;
      const retried = await svc(['--json', 'retry', result.workflow.id, '--follow'], 0);
      const after = ndjson(retried);
      expect(after.at(-1)).toMatchObject({ type: 'result', exit_code: 0, workflow: { status: 'completed' } });
      const seqs = after.slice(0, -1).map((e) => e.seq as number);
      expect(seqs.length).toBeGreaterThan(0);
      expect(Math.min(...seqs)).toBeGreaterThan(lastSeq);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'not on a terminal and no answers: exits 3 with the question; `svc answer --follow` then completes it',
    async () => {
      const waiting = await svc(['run', '-p', 'ci', 'Colour it [ask]', '--follow'], 3);
      expect(waiting.stdout).toContain(`status: waiting_user: ${QUESTION}`);
      expect(waiting.stdout).toMatch(new RegExp(`workflow \\S+ waits for an answer: ${QUESTION}`));
      expect(waiting.stderr).toContain('not a terminal');
      const id = /workflow (\S+) waits/.exec(waiting.stdout)![1]!;
      expect(await stack.workflow(id)).toMatchObject({ status: 'waiting_user', question: QUESTION });

      // --json: the waiting workflow in the result line, exit 3 again
      const again = await svc(['--json', 'logs', id, '--follow'], 3);
      expect(ndjson(again).at(-1)).toMatchObject({
        exit_code: 3,
        workflow: { status: 'waiting_user', question: QUESTION },
      });

      const answered = await svc(['answer', id, 'teal', '--follow'], 0);
      expect(answered.stdout).toContain('==> step 2/2: Write the page');
      // the past (the question, step 1 starting) is not printed again
      expect(answered.stdout).not.toContain('status: waiting_user');
      expect(answered.stdout).not.toContain('==> step 1/2');
      expect(await fileOf(id, 'colour.txt')).toBe('teal');
    },
    E2E_TIMEOUT_MS,
  );

  it(
    '--answer-file answers the question by its text',
    async () => {
      const file = path.join(stack.dir, 'answers.json');
      writeFileSync(file, JSON.stringify({ [QUESTION]: 'crimson' }));
      const result = await svc(['--json', 'run', '-p', 'ci', 'Colour it [ask]', '--follow', '--answer-file', file], 0);
      const last = ndjson(result).at(-1) as { workflow: Workflow };
      expect(await fileOf(last.workflow.id, 'colour.txt')).toBe('crimson');
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'answers typed on stdin when asked (--answer-file -)',
    async () => {
      const cli = stack.start(['run', '-p', 'ci', 'Colour it [ask]', '--follow', '--answer-file', '-']);
      await cli.nextLine((line) => line === `status: waiting_user: ${QUESTION}`);
      cli.write('olive\n');
      const result = await cli.exited;
      if (result.code !== 0) throw new Error(cli.describe(result));
      const id = /workflow (\S+) completed/.exec(result.stdout)![1]!;
      expect(await fileOf(id, 'colour.txt')).toBe('olive');
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'cancel: a followed cancelled workflow exits 2; usage errors exit 2 too',
    async () => {
      const created = await svc(['run', '-p', 'ci', 'Colour it [ask]'], 0);
      const id = created.stdout.trim();
      await stack.waitForStatus(id, 'waiting_user');
      const cancelled = await svc(['--json', 'cancel', id], 0);
      expect(json<Workflow>(cancelled)).toMatchObject({ id, status: 'cancelled' });
      const followed = await svc(['logs', id, '--follow'], 2);
      expect(followed.stdout).toContain('status: cancelled');
      expect(followed.stdout).toContain(`workflow ${id} was cancelled`);

      const noProject = await svc(['run', 'no project given'], 2);
      expect(noProject.stderr).toContain('no project');
      expect((await svc(['frobnicate'], 2)).stderr).toContain("unknown command 'frobnicate'");
      const badJson = await svc(['--json', 'status'], 2);
      expect(badJson.stderr).toContain("missing required argument 'workflow'");
      const missing = await svc(['--json', 'status', 'no-such-workflow'], 1);
      expect(JSON.parse(missing.stderr)).toMatchObject({ error: { code: 'not_found', status: 404 } });
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'logs, report and status of a finished workflow',
    async () => {
      const logs = await svc(['logs', helloId], 0);
      expect(logs.stdout).toContain('  $ execute_on_worker');
      expect(logs.stdout).toContain('    | hello from svc');
      const entries = json<{ tool_name: string; output: string }[]>(await svc(['--json', 'logs', helloId], 0));
      expect(entries.find((e) => e.tool_name === 'execute_on_worker')?.output).toContain('hello from svc');
      expect((await svc(['report', helloId], 0)).stdout).toContain('All done.');
      const status = json<Workflow & { plan: { status: string }[] }>(await svc(['--json', 'status', helloId], 0));
      expect(status).toMatchObject({ id: helloId, status: 'completed' });
      expect(status.plan.map((s) => s.status)).toEqual(['done', 'done']);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'files: put and get round trips (files and stdin/stdout), listing, and the workspace archive',
    async () => {
      const dir = path.join(stack.dir, 'files');
      mkdirSync(dir);
      const blob = randomBytes(300_000);
      writeFileSync(path.join(dir, 'blob.bin'), blob);
      const put = json<{ path: string; size: number; sha256: string }>(
        await svc(['--json', 'files', 'put', helloId, path.join(dir, 'blob.bin'), 'data/blob.bin'], 0),
      );
      expect(put).toMatchObject({ path: 'data/blob.bin', size: blob.length });
      await svc(['files', 'get', helloId, 'data/blob.bin', '-o', path.join(dir, 'back.bin')], 0);
      expect(readFileSync(path.join(dir, 'back.bin')).equals(blob)).toBe(true);

      await svc(['files', 'put', helloId, '-', 'notes/from stdin.md'], 0, { input: '# Notes\n\nraw *markdown*\n' });
      expect(await fileOf(helloId, 'notes/from stdin.md')).toBe('# Notes\n\nraw *markdown*\n');

      const listing = json<{ path: string; type: string; size: number }[]>(
        await svc(['--json', 'files', 'ls', helloId, '-r'], 0),
      );
      expect(listing).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ path: 'hello.txt', type: 'file' }),
          expect.objectContaining({ path: 'data/blob.bin', size: blob.length }),
        ]),
      );

      const archive = path.join(dir, 'ws.tar.gz');
      await svc(['files', 'archive', helloId, '-o', archive], 0);
      const extracted = path.join(dir, 'extracted');
      mkdirSync(extracted);
      await exec('tar', ['-xzf', archive, '-C', extracted]);
      expect(readFileSync(path.join(extracted, 'hello.txt'), 'utf8')).toBe('hello from svc\n');
      expect(readFileSync(path.join(extracted, 'data/blob.bin')).equals(blob)).toBe(true);
      expect(readFileSync(path.join(extracted, 'notes/from stdin.md'), 'utf8')).toBe('# Notes\n\nraw *markdown*\n');
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'storage: put, ls, get (file and stdout), rm round trip',
    async () => {
      const dir = path.join(stack.dir, 'storage');
      mkdirSync(dir);
      const big = randomBytes(3 * 1024 * 1024 + 17);
      writeFileSync(path.join(dir, 'big.bin'), big);
      const put = json<{ path: string; size: number }>(
        await svc(['--json', 'storage', 'put', path.join(dir, 'big.bin'), 'builds/big.bin', '-p', 'ci'], 0),
      );
      expect(put).toMatchObject({ path: 'builds/big.bin', size: big.length });
      const listing = json<{ path: string; size: number }[]>(
        await svc(['--json', 'storage', 'ls', 'builds', '-p', 'ci'], 0),
      );
      expect(listing).toEqual([expect.objectContaining({ path: 'builds/big.bin', size: big.length })]);
      await svc(['storage', 'get', 'builds/big.bin', '-o', path.join(dir, 'back.bin'), '-p', 'ci'], 0);
      expect(readFileSync(path.join(dir, 'back.bin')).equals(big)).toBe(true);
      await svc(['storage', 'put', '-', 'notes.txt', '-p', 'ci'], 0, { input: 'from stdin' });
      expect((await svc(['storage', 'get', 'notes.txt', '-o', '-', '-p', 'ci'], 0)).stdout).toBe('from stdin');

      await svc(['storage', 'rm', 'builds/big.bin', '-p', 'ci'], 0);
      expect(json<unknown[]>(await svc(['--json', 'storage', 'ls', 'builds', '-p', 'ci'], 0))).toEqual([]);
      const gone = await svc(['--json', 'storage', 'get', 'builds/big.bin', '-p', 'ci'], 1);
      expect(JSON.parse(gone.stderr)).toMatchObject({ error: { code: 'not_found' } });
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'tokens: create one narrowed to a project, use it, revoke it; flags win over env, env over the file',
    async () => {
      // An api token cannot mint more: the CLI says what to do instead.
      const refusedMint = await svc(['token', 'create'], 1);
      expect(refusedMint.stderr).toContain('only for a signed-in session');
      const created = json<{ token: string; expires_at: string; project_id: string }>(
        await svc(['--json', 'token', 'create', '--project', 'ci', '--ttl', '1h', '--dev-user', 'alice'], 0),
      );
      expect(created.project_id).toBe(stack.projectId);
      const inHour = Date.parse(created.expires_at) - Date.now();
      expect(inHour).toBeGreaterThan(0);
      expect(inHour).toBeLessThanOrEqual(3600_000);

      const me = json<{ user: { login: string }; token: { source: string; scope: string; project_id: string } }>(
        await svc(['--json', 'whoami', '--token', created.token], 0),
      );
      expect(me).toMatchObject({
        user: { login: 'alice' },
        token: { source: 'flag', scope: 'api', project_id: stack.projectId },
      });
      // SVC_TOKEN wins over the file; --token over SVC_TOKEN
      const viaEnv = json<{ sources: Record<string, string> }>(
        await svc(['--json', 'config', 'show'], 0, { env: { SVC_TOKEN: created.token } }),
      );
      expect(viaEnv.sources).toMatchObject({ token: 'env', url: 'file' });
      const viaFlag = json<{ sources: Record<string, string> }>(
        await svc(['--json', 'config', 'show', '--token', 'x'], 0, {
          env: { SVC_TOKEN: created.token, SVC_URL: stack.api.url },
        }),
      );
      expect(viaFlag.sources).toMatchObject({ token: 'flag', url: 'env' });

      const revoked = json<{ revoked: boolean; scope: string }>(
        await svc(['--json', 'token', 'revoke', '-'], 0, { input: created.token }),
      );
      expect(revoked).toMatchObject({ revoked: true, scope: 'api' });
      const refused = await svc(['--json', 'whoami'], 1, { env: { SVC_TOKEN: created.token } });
      expect(JSON.parse(refused.stderr)).toMatchObject({ error: { code: 'unauthenticated', status: 401 } });
      // the saved token still works
      await svc(['whoami'], 0);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'logout revokes the saved token and forgets it',
    async () => {
      const config = path.join(stack.dir, 'bob.json');
      const env = { SVC_CONFIG: config };
      await svc(['login', '--url', stack.api.url, '--dev-user', 'bob'], 0, { env });
      const { token } = JSON.parse(readFileSync(config, 'utf8')) as { token: string };
      expect((await svc(['whoami'], 0, { env })).stdout).toContain('bob on ');
      await svc(['logout'], 0, { env });
      expect(JSON.parse(readFileSync(config, 'utf8'))).toEqual({ url: stack.api.url });
      expect((await svc(['whoami'], 2, { env })).stderr).toContain('not signed in');
      await svc(['whoami', '--token', token], 1, { env });
      // a pasted api token (stdin) signs in too
      const pasted = json<{ user: { login: string } }>(
        await svc(['--json', 'login', '--with-token'], 0, { env, input: `${stack.token}\n` }),
      );
      expect(pasted.user.login).toBe('alice');
      // a pasted session (the svc_session cookie value of a browser sign-in) is traded for an api token
      const session = (await stack.api.login('bob')).split('=').slice(1).join('=');
      await svc(['login', '--with-token'], 0, { env, input: session });
      const saved = JSON.parse(readFileSync(config, 'utf8')) as { token: string };
      expect(saved.token).not.toBe(session);
      const claims = JSON.parse(Buffer.from(saved.token.split('.')[1]!, 'base64url').toString()) as { scope: string };
      expect(claims.scope).toBe('api');
      expect((await svc(['whoami'], 0, { env })).stdout).toContain('bob on ');
      // and a session mints tokens with --session-token
      const minted = json<{ token: string }>(
        await svc(['--json', 'token', 'create', '--session-token', session], 0, { env }),
      );
      expect((await svc(['whoami', '--token', minted.token], 0, { env })).stdout).toContain('bob on ');
    },
    E2E_TIMEOUT_MS,
  );
});

describe('the packaged CLI (svc-cli-<version>.tgz)', () => {
  it(
    'installs with npm install -g, answers --version, and talks to a server outside the repository',
    async () => {
      const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'svc-cli-dist-')));
      const api = await startApiProcess({ env: { LOG_LEVEL: 'warn' } });
      try {
        const { stdout } = await exec(process.execPath, [
          path.join(__dirname, '../../scripts/package.mjs'),
          '--out',
          dir,
        ]);
        const tarball = stdout.trim();
        expect(path.basename(tarball)).toBe(`svc-cli-${CLI_VERSION}.tgz`);
        const prefix = path.join(dir, 'prefix');
        await exec('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', tarball], { cwd: dir });
        const bin = path.join(prefix, 'bin', 'svc');
        const env = { PATH: process.env.PATH ?? '', HOME: dir };
        expect((await exec(bin, ['--version'], { cwd: dir, env })).stdout).toBe(`${CLI_VERSION}\n`);
        await exec(bin, ['login', '--url', api.url, '--dev-user', 'carol'], { cwd: dir, env });
        const me = JSON.parse((await exec(bin, ['--json', 'whoami'], { cwd: dir, env })).stdout) as {
          user: { login: string };
        };
        expect(me.user.login).toBe('carol');
        // the documented config location under HOME
        expect(JSON.parse(readFileSync(path.join(dir, '.config/svc/config.json'), 'utf8'))).toMatchObject({
          url: api.url,
        });
      } finally {
        await api.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    E2E_TIMEOUT_MS,
  );
});
