#!/usr/bin/env node
// `pnpm demo [--keep] [--data-dir <dir>] [--port <n>]`: the server (SQLite, dev login), the scripted LLM
// and one worker, then the sample workflow followed live over /svc/ws until its report.
// Everything stops at the end; with --keep it stays up (Ctrl-C stops it).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WebSocket = createRequire(path.join(ROOT, 'apps/worker/package.json'))('ws');
const REQUIREMENT = 'Build a static hello-world web page and serve it';
const WORKFLOW_TIMEOUT_MS = 120_000;
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
const say = (line) => console.log(`[${elapsed().padStart(6)}] ${line}`);

const USAGE = 'usage: pnpm demo [--keep] [--data-dir <dir>] [--port <n>]';

/** Each option and what it sets; `next()` takes the argument that follows it. */
const OPTIONS = new Map([
  ['--keep', (args) => (args.keep = true)],
  ['--data-dir', (args, next) => (args.dataDir = path.resolve(next() ?? ''))],
  ['--port', (args, next) => (args.port = Number(next()))],
  // pnpm passes a `--` through before the script's own arguments
  ['--', () => undefined],
]);

function parseArgs(argv) {
  const args = { keep: false, dataDir: null, port: null };
  for (let i = 0; i < argv.length; i++) {
    const option = OPTIONS.get(argv[i]);
    if (!option) usageError(`unknown argument ${argv[i]}\n${USAGE}`);
    option(args, () => argv[++i]);
  }
  if (args.port !== null && !isPort(args.port)) usageError('--port needs a port number (1-65535)');
  return args;
}

const isPort = (port) => Number.isInteger(port) && port > 0 && port < 65536;

function usageError(message) {
  console.error(`demo: ${message}`);
  process.exit(2);
}

// ---- build ----

const APPS = ['apps/api', 'apps/worker', 'apps/scripted-llm', 'apps/cli'];

/** `turbo run build` for what the demo runs: a second or so when nothing changed, a full build otherwise. */
function ensureBuilt() {
  const begun = Date.now();
  say('building the server, the worker, the scripted LLM and the CLI (turbo; cached when unchanged)…');
  const filters = ['@svc/api', '@svc/worker', '@svc/scripted-llm', '@svc/cli'].map((f) => `--filter=${f}`);
  // Piped, not inherited: a turbo daemon must not hold this process's output open.
  const result = spawnSync('pnpm', ['turbo', 'run', 'build', ...filters, '--no-daemon', '--output-logs=errors-only'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (!result.error && result.status === 0) return say(`build ready (${((Date.now() - begun) / 1000).toFixed(1)}s)`);
  const output = `${result.error?.message ?? ''}${result.stdout ?? ''}${result.stderr ?? ''}`
    .split('\n')
    .slice(-25)
    .join('\n');
  if (APPS.every((app) => existsSync(path.join(ROOT, app, 'dist')))) {
    return say(`warning: the build failed; running the existing builds\n${output}`);
  }
  console.error(`demo: the build failed and there is nothing built to run:\n${output}`);
  process.exit(1);
}

// ---- processes ----

const children = [];
function start(name, args, env) {
  // Own process groups: Ctrl-C reaches the demo only, which then stops them in order.
  const childEnv = { PATH: process.env.PATH, HOME: process.env.HOME, ...env };
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const entry = {
    name,
    child,
    output: '',
    exited: new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal }))),
  };
  const keep = (chunk) => (entry.output = (entry.output + chunk).slice(-20_000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  entry.exited.then(({ code, signal }) => {
    if (!stopping) fail(`${name} exited unexpectedly (code ${code}, signal ${signal})`);
  });
  children.push(entry);
  return entry;
}

let stopping = false;
async function stopAll() {
  stopping = true;
  for (const { child } of children) child.kill('SIGTERM');
  await Promise.race([Promise.all(children.map((c) => c.exited)), new Promise((r) => setTimeout(r, 8000).unref())]);
  for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

let cleanup = async () => undefined;
async function fail(message) {
  console.error(`\ndemo failed: ${message}`);
  for (const { name, output } of children)
    console.error(`--- ${name} (last lines) ---\n${output.split('\n').slice(-25).join('\n')}`);
  await cleanup();
  process.exit(1);
}

const portFree = (port) =>
  new Promise((resolve) => {
    const server = createServer().once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
const anyPort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

async function until(what, probe, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) return fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// ---- the API, as a browser and an administrator would use it ----

async function signIn(base, login) {
  const res = await fetch(`${base}/svc/auth/dev-login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ login }),
  });
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('svc_session='));
  if (res.status !== 200 || !cookie) return fail(`dev login of ${login}: HTTP ${res.status} ${await res.text()}`);
  const session = cookie.split(';')[0];
  const call = async (method, route, body) => {
    const r = await fetch(`${base}/svc/api${route}`, {
      method,
      // A browser sends its page's origin; the server refuses cookie-authenticated writes without it.
      headers: { cookie: session, origin: base, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await r.text();
    if (!r.ok) return fail(`${method} ${route}: HTTP ${r.status} ${text}`);
    return r.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
  };
  return { call, cookie: session };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  ensureBuilt();
  const port = args.port ?? ((await portFree(8080)) ? 8080 : await anyPort());
  const dataDir = args.dataDir ?? mkdtempSync(path.join(tmpdir(), 'svc-demo-'));
  mkdirSync(dataDir, { recursive: true });
  cleanup = async () => {
    await stopAll();
    if (!args.dataDir && !args.keep) rmSync(dataDir, { recursive: true, force: true });
  };
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => void cleanup().then(() => process.exit(130)));

  const base = `http://127.0.0.1:${port}`;
  const webDist = path.join(ROOT, 'apps/web/dist');
  start('api', ['apps/api/dist/index.js'], {
    NODE_ENV: 'development',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: base,
    ALLOWED_ORIGINS: `http://localhost:${port}`,
    DATA_DIR: dataDir,
    AUTH_PROVIDER: 'dev',
    ADMIN_USERS: 'admin',
    LOG_LEVEL: 'warn',
    ...(existsSync(webDist) ? { WEB_DIST_DIR: webDist } : {}),
  });
  await until('the server', async () => (await fetch(`${base}/svc/api/health`)).ok);
  say(`server   ${base} (SQLite in ${dataDir})`);

  const llm = start(
    'scripted-llm',
    ['apps/scripted-llm/dist/cli.js', '--script', 'apps/scripted-llm/scripts/demo.yaml', '--port', '0'],
    {},
  );
  const llmUrl = await until('the scripted LLM', async () => /listening on (\S+)/.exec(llm.output)?.[1]);
  say(`llm      ${llmUrl} (scripted: apps/scripted-llm/scripts/demo.yaml)`);

  const { call: admin } = await signIn(base, 'admin');
  const { token } = await admin('POST', '/token', { scope: 'worker' });
  const workerConfig = path.join(dataDir, 'demo-worker.yaml');
  writeFileSync(
    workerConfig,
    [
      `server_url: ${base}`,
      'token_env: SVC_WORKER_TOKEN',
      'name: demo-worker',
      'capacity: 1',
      `workspace_root: ${path.join(dataDir, 'worker-workspaces')}`,
      'llm:',
      `  base_url: ${llmUrl}`,
      '  api_key: demo',
      '  model: scripted-demo',
      '',
    ].join('\n'),
  );
  start('worker', ['apps/worker/dist/cli.js', '--config', workerConfig], { SVC_WORKER_TOKEN: token });
  await until('the worker to register', async () =>
    (await admin('GET', '/workers')).some((w) => w.name === 'demo-worker' && w.status === 'online'),
  );
  say(`worker   demo-worker registered (config ${workerConfig})`);

  const { call: demo, cookie } = await signIn(base, 'demo');
  const project = await demo('POST', '/projects', { name: 'Demo', description: 'Created by pnpm demo' });
  const workflow = await demo('POST', `/projects/${project.id}/workflows`, { requirement: REQUIREMENT });
  const createdAt = Date.now();
  say(`workflow ${workflow.id}: "${REQUIREMENT}"`);

  // The events as `svc run --follow --verbose` prints them (a tool call under the step that made it).
  const { EventPrinter } = createRequire(import.meta.url)(path.join(ROOT, 'apps/cli/dist/index.js'));
  const printer = new EventPrinter(say, true);
  const socket = new WebSocket(`ws://127.0.0.1:${port}/svc/ws`, { headers: { cookie, origin: base } });
  const finished = new Promise((resolve) => {
    socket.on('message', (raw) => {
      const event = JSON.parse(raw.toString());
      if (event.workflow_id !== workflow.id) return;
      printer.print(event);
      if (event.type === 'workflow_status' && ['completed', 'failed', 'cancelled'].includes(event.data.status))
        resolve(event.data.status);
    });
  });
  socket.once('open', () => socket.send(JSON.stringify({ type: 'subscribe', workflow_id: workflow.id, since_seq: 0 })));
  socket.once('error', (err) => fail(`browser socket: ${err.message}`));
  const status = await Promise.race([
    finished,
    new Promise((r) => setTimeout(() => r('timed out'), WORKFLOW_TIMEOUT_MS).unref()),
  ]);
  const workflowSeconds = ((Date.now() - createdAt) / 1000).toFixed(1);
  socket.close();
  printer.flush();
  if (status !== 'completed') return fail(`the workflow ended ${status}`);

  const report = await demo('GET', `/workflows/${workflow.id}/report`);
  const calls = await demo('GET', `/workflows/${workflow.id}/llm-calls`);
  console.log(`\n----- report.md -----\n${report.trim()}\n---------------------`);
  say(
    `workflow completed in ${workflowSeconds}s (${calls.totals.calls} LLM calls, ${calls.totals.prompt_tokens} prompt + ${calls.totals.completion_tokens} completion tokens); demo wall time ${elapsed()}`,
  );

  if (args.keep) {
    const appUrl = (await demo('GET', `/workflows/${workflow.id}`)).app_url;
    console.log(`\nStill running (Ctrl-C stops everything):
  web app      ${base}/  (sign in as "demo"; "admin" is an administrator)
  API          ${base}/svc/api
  built app    ${appUrl}
  scripted LLM ${llmUrl}
  worker       ${workerConfig}
  data         ${dataDir}`);
    return;
  }
  await cleanup();
  say('stopped everything');
}

main().catch((err) => fail(err?.stack ?? String(err)));
