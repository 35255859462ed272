import path from 'node:path';
import { loadScriptFile } from '@svc/scripted-llm';
import type { SnapshotListItem } from '@svc/protocol';
import { parse as parseYaml } from 'yaml';
import { repoRoot } from '@svc/test-kit';
import { BrowserSocket } from '../support/e2e-browser';
import { E2E_TIMEOUT_MS, startStack, type Stack } from '../support/e2e-stack';
import { eventually } from '@svc/test-kit';

const DEMO_SCRIPT = path.join(repoRoot(), 'apps/scripted-llm/scripts/demo.yaml');
const REQUIREMENT = 'Build a static hello-world web page and serve it\nKeep it to one index.html file.';
const PLAN_TITLES = ['Write index.html', 'Check the page', 'Note the URL'];

/** Status changes between consecutive stored snapshots: what the browser must have been told. */
function transitions(snapshots: SnapshotListItem[]): string[] {
  const changes: string[] = [];
  let before: string[] = [];
  for (const { snapshot } of snapshots) {
    snapshot.steps.forEach((step, index) => {
      if (before[index] !== step.status) changes.push(`${index}:${step.status}`);
    });
    before = snapshot.steps.map((s) => s.status);
  }
  return changes;
}

describe.each(['sqlite', 'postgresql'] as const)('a workflow from requirement to report on %s', (db) => {
  let stack: Stack;
  let browser: BrowserSocket | undefined;

  beforeAll(async () => {
    stack = await startStack({ db, script: await loadScriptFile(DEMO_SCRIPT) });
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    browser?.close();
    await stack?.close();
  });

  it(
    'plans, runs every step, logs, counts tokens, titles and reports, with live plan events',
    async () => {
      const { alice, api } = stack;
      const created = await alice.createWorkflow(stack.projectId, REQUIREMENT);
      // Until the worker's title arrives, the title is the requirement's first line.
      expect(created.title).toBe('Build a static hello-world web page and serve it');
      browser = await BrowserSocket.open(api.url, alice.cookie);
      await browser.subscribe(created.id, 0);

      const done = await stack.waitForStatus(created.id, 'completed');
      expect(done.title).toBe('Hello-world static web page');
      expect(done.requirement).toBe(REQUIREMENT);

      const plan = await alice.plan(created.id);
      expect(plan.map((s) => [s.index, s.title, s.status])).toEqual(PLAN_TITLES.map((title, i) => [i, title, 'done']));

      // Every step transition reached the browser, in order, and matches the stored snapshots.
      const snapshots = (
        await alice.json<{ items: SnapshotListItem[] }>(`/workflows/${created.id}/snapshots?limit=1000`)
      ).items;
      const expected = transitions(snapshots);
      const seen = () => browser!.events('plan_step_status', created.id).map((e) => `${e.data.index}:${e.data.status}`);
      await eventually(() => seen().length >= expected.length, {
        what: 'every plan_step_status event',
        detail: () => seen().join(' '),
      });
      expect(seen()).toEqual(expected);
      expect(seen()).toEqual([
        '0:running',
        '1:pending',
        '2:pending',
        '0:done',
        '1:running',
        '1:done',
        '2:running',
        '2:done',
      ]);
      const statusEvents = browser.events('workflow_status', created.id).map((e) => e.data.status);
      expect(statusEvents).toEqual(expect.arrayContaining(['planning', 'running', 'completed']));
      expect(statusEvents.at(-1)).toBe('completed');

      // The execution log: tool_input is YAML text of the JSON the worker sent.
      const log = await alice.log(created.id);
      expect(log.map((e) => `${e.step_index}:${e.tool_name}`)).toEqual([
        'null:kb_search',
        'null:submit_plan',
        ...[0, 1, 2].flatMap((i) => [`${i}:execute_on_worker`, `${i}:save_memo`, `${i}:advance_step`]),
      ]);
      expect(log[0]?.tool_input).toBe('query: serve a static web page\n');
      const check = log.find((e) => e.step_index === 1 && e.tool_name === 'execute_on_worker');
      expect(parseYaml(check!.tool_input)).toEqual({
        command: "grep -c 'Hello, world!' index.html",
        timeout_seconds: 30,
      });
      expect(check).toMatchObject({ is_error: false, output: expect.stringContaining('[exit code 0]') });
      expect(log.every((e) => typeof parseYaml(e.tool_input) === 'object')).toBe(true);

      // One LLM call record per answered request, with the scripted server's usage numbers.
      const calls = await alice.llmCalls(created.id);
      const answered = stack.llm.requests.filter((r) => r.status === 200);
      expect(calls.items).toHaveLength(answered.length);
      expect(calls.items.map((c) => c.prompt_tokens).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(
        answered.map((r) => r.usage?.prompt_tokens).sort((a, b) => (a ?? 0) - (b ?? 0)),
      );
      expect(new Set(calls.items.map((c) => c.phase))).toEqual(new Set(['title', 'planning', 'executing', 'report']));
      expect(
        calls.items.every(
          (c) => (c.prompt_tokens ?? 0) > 0 && (c.completion_tokens ?? 0) > 0 && c.model === 'scripted-e2e',
        ),
      ).toBe(true);
      expect(calls.totals).toEqual({
        calls: calls.items.length,
        prompt_tokens: calls.items.reduce((sum, c) => sum + (c.prompt_tokens ?? 0), 0),
        completion_tokens: calls.items.reduce((sum, c) => sum + (c.completion_tokens ?? 0), 0),
        latency_ms: calls.items.reduce((sum, c) => sum + c.latency_ms, 0),
        unknown_usage_calls: 0,
        failed_calls: 0,
      });
      expect(calls.items.filter((c) => c.phase === 'executing').map((c) => c.step_index)).toEqual([
        0, 0, 0, 1, 1, 1, 2, 2, 2,
      ]);

      // The report names the app link, and that link serves the page the agent built, with no session.
      const appUrl = done.app_link!;
      expect(appUrl).toMatch(new RegExp(`^${api.url}/svc/apps/[A-Za-z0-9_-]{43}/$`));
      expect(done.app_url).toBe(appUrl);
      const report = await alice.report(created.id);
      expect(report).toContain('# Report: hello-world web page');
      expect(report).toContain(appUrl);
      const page = await fetch(appUrl);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<h1>Hello, world!</h1>');
    },
    E2E_TIMEOUT_MS,
  );
});
