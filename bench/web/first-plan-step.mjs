// Time to first plan step (issue 29): in Chromium, a signed-in user types a requirement on the project page
// and presses "Start workflow"; the clock stops when the run page shows the first step of the plan. The
// whole path is real: the built server (SQLite) serving apps/web/dist, a real worker process, and the
// scripted OpenAI-compatible LLM (apps/scripted-llm/scripts/demo.yaml), whose planning calls are the
// LLM's share (their latency_ms from the run's LLM-call log). Each run completes before the next starts.
//   node bench/web/first-plan-step.mjs [runs]     (default 10; BENCH_PLAN_RUNS too)
// Needs apps/api, apps/web, apps/worker and apps/scripted-llm built (`pnpm bench web` builds them) and /usr/bin/chromium.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { devLogin, percentile, repoRoot, startServerProcess } from '../lib/server-process.mjs';

const require = createRequire(join(repoRoot, 'apps/web/package.json'));
const { chromium } = require('playwright-core');
const { startScriptedLlm, loadScriptFile } = require(join(repoRoot, 'apps/scripted-llm/dist/index.js'));

const runs = Number(process.argv[2] ?? process.env.BENCH_PLAN_RUNS ?? 10);
const server = await startServerProcess({ env: { WEB_DIST_DIR: join(repoRoot, 'apps/web/dist') } });
const llm = await startScriptedLlm({
  script: await loadScriptFile(join(repoRoot, 'apps/scripted-llm/scripts/demo.yaml')),
});
const cookie = await devLogin(server.url);
const api = async (method, path, body) => {
  const res = await fetch(`${server.url}/svc/api${path}`, {
    method,
    headers: { cookie, origin: server.url, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
};

const { token } = await api('POST', '/token', { scope: 'worker' });
const config = join(server.dataDir, 'bench-worker.yaml');
writeFileSync(
  config,
  [
    `server_url: ${server.url}`,
    'token_env: SVC_WORKER_TOKEN',
    'name: bench-worker',
    'capacity: 1',
    `workspace_root: ${join(server.dataDir, 'worker-workspaces')}`,
    'llm:',
    `  base_url: ${llm.url}`,
    '  api_key: bench',
    '  model: scripted-demo',
    '',
  ].join('\n'),
);
const worker = spawn(process.execPath, [join(repoRoot, 'apps/worker/dist/cli.js'), '--config', config], {
  env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_WORKER_TOKEN: token, LOG_LEVEL: 'warn' },
  stdio: ['ignore', process.env.BENCH_WORKER_LOG ? 'inherit' : 'ignore', 'inherit'],
});
/** Polls `probe` every 50 ms until it returns something (a bench may poll; tests may not). */
const until = async (what, probe, timeoutMs = 120_000) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking'],
});
try {
  await until('the worker to register', async () =>
    (await api('GET', '/workers')).some((w) => w.name === 'bench-worker' && w.status === 'online'),
  );
  const project = await api('POST', '/projects', { name: 'First plan step' });
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  const [name, value] = cookie.split('=');
  await context.addCookies([{ name, value, url: server.url }]);
  const page = await context.newPage();
  page.setDefaultTimeout(120_000);
  const totals = [];
  const llmShares = [];
  const runPage = [];
  for (let i = 0; i <= runs; i++) {
    await page.goto(`${server.url}/projects/${project.id}`);
    await page
      .getByRole('textbox', { name: 'Requirement' })
      .fill(`Build a static hello-world web page and serve it (${i})`);
    const startedAt = performance.now();
    await page.getByRole('button', { name: 'Start workflow' }).click();
    await page.waitForURL('**/workflows/**');
    const onRunPage = performance.now() - startedAt;
    await page.locator('.plan-step').first().waitFor();
    const ms = performance.now() - startedAt;
    const workflowId = decodeURIComponent(page.url().split('/workflows/')[1]);
    await until('the run to complete', async () => {
      const { status } = await api('GET', `/workflows/${workflowId}`);
      if (['failed', 'cancelled'].includes(status)) throw new Error(`run ${workflowId} ended ${status}`);
      return status === 'completed';
    });
    const calls = await api('GET', `/workflows/${workflowId}/llm-calls`);
    const planning = calls.items.filter((c) => c.phase === 'planning').reduce((sum, c) => sum + c.latency_ms, 0);
    // the first run warms the server, the worker and Chromium's cache: not counted
    if (i === 0) continue;
    totals.push(ms);
    runPage.push(onRunPage);
    llmShares.push(planning);
  }
  const sorted = (list) => [...list].sort((a, b) => a - b);
  const t = sorted(totals);
  const l = sorted(llmShares);
  const r = sorted(runPage);
  console.log(
    `time to first plan step over ${runs} runs (click "Start workflow" → first step on screen, Chromium, SQLite, real worker, scripted LLM): ` +
      `median ${percentile(t, 50).toFixed(0)} ms, p90 ${percentile(t, 90).toFixed(0)} ms, min ${t[0].toFixed(0)} ms; ` +
      `on the run page after ${percentile(r, 50).toFixed(0)} ms (median); ` +
      `the LLM's share (planning calls' latency) median ${percentile(l, 50)} ms`,
  );
} finally {
  await browser.close();
  worker.kill('SIGTERM');
  await new Promise((r) => (worker.exitCode !== null ? r() : worker.once('exit', r)));
  await llm.close();
  await server.stop();
}
