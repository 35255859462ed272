import type { Page } from 'playwright-core';
import type { SnapshotData, UpdateBody, Workflow } from '@svc/protocol';
import { expectText } from '../support/pages';
import { expectJson, type TestServer, type TestWorker } from '../support/server';

/** The run page's tests: a scripted worker (real protocol) drives runs the page shows. */

export const STEPS = [
  { title: 'Scaffold the shop', description: 'Vite + React app in ./shop' },
  { title: 'Build the cart', description: 'Add, remove, total in €' },
  { title: 'Add payments', description: 'A fake checkout page' },
];

export const planUpdate = (
  phase: SnapshotData['phase'],
  current: number | null,
  statuses: ('done' | 'running' | 'pending')[],
  steps = STEPS,
): UpdateBody => ({
  kind: 'snapshot',
  data: { phase, current_step: current, memo: [], steps: steps.map((step, i) => ({ ...step, status: statuses[i]! })) },
});

/** One workflow as the scripted worker runs it: every update numbered and stored (acknowledged). */
export class ScriptedRun {
  private seq = 0;
  constructor(
    readonly id: string,
    private readonly worker: TestWorker,
  ) {}

  async store(body: UpdateBody): Promise<void> {
    const answer = await this.worker.store(this.id, ++this.seq, body);
    if (answer.type !== 'ack') throw new Error(`update ${this.seq} refused: ${JSON.stringify(answer)}`);
  }

  status(status: Workflow['status'], extra: { question?: string; error?: string } = {}): Promise<void> {
    return this.store({ kind: 'status', data: { status, ...extra } });
  }

  log(stepIndex: number, command: string, output: string): Promise<void> {
    return this.store({
      kind: 'log_entry',
      data: { step_index: stepIndex, tool_name: 'execute_on_worker', tool_input: { command }, output, is_error: false },
    });
  }
}

/** A project of `cookie`'s over REST; resolves with its id. */
export async function createProject(server: TestServer, cookie: string, name: string): Promise<string> {
  const res = await server.request('/svc/api/projects', { as: cookie, json: { name } });
  return (await expectJson<{ id: string }>(res, 201)).id;
}

/** Creates a workflow over REST as `cookie`, has the worker take it up and report it running. */
export async function startRun(
  server: TestServer,
  worker: TestWorker,
  cookie: string,
  projectId: string,
  requirement: string,
): Promise<ScriptedRun> {
  const created = await expectJson<Workflow>(
    await server.request(`/svc/api/projects/${projectId}/workflows`, {
      method: 'POST',
      as: cookie,
      json: { requirement },
    }),
    201,
  );
  await worker.dispatch(created.id, 'start');
  const run = new ScriptedRun(created.id, worker);
  await run.status('running');
  return run;
}

export const runUrl = (server: TestServer, projectId: string, workflowId: string) =>
  `${server.url}/projects/${projectId}/workflows/${workflowId}`;

/** Opens a run page and waits until the server confirmed its live subscription. */
export async function openRun(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.locator('[data-following="true"]').waitFor();
}

/** `data-step-status` of every timeline step, in order. */
export const shownSteps = (page: Page): Promise<string[]> =>
  page
    .locator('.timeline .plan-step [data-step-status]')
    .evaluateAll((els) => els.map((el) => el.getAttribute('data-step-status') ?? ''));

export const fact = (page: Page, name: string) => page.locator(`.run-head [data-fact="${name}"]`);

export const expectStatus = (page: Page, label: string) => expectText(page.locator('.run-head [data-status]'), label);

/** The element that has focus, described, or "body" when focus fell to the document. */
export const focused = (page: Page): Promise<string> =>
  page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return 'body';
    return `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}:${(el.textContent ?? '').trim().slice(0, 40)}`;
  });

/** A time of day to the second, as the page shows started/finished times ("10:03:07", "10:03:07 AM"). */
export const WITH_SECONDS = /\d{1,2}:\d{2}:\d{2}/;

/** A member of the project besides its owner: invited over REST and accepted. */
export async function addMember(server: TestServer, ownerCookie: string, projectId: string, login: string) {
  const cookie = await server.login(login);
  const invited = await server.request(`/svc/api/projects/${projectId}/members`, {
    method: 'POST',
    as: ownerCookie,
    json: { login, role: 'member' },
  });
  if (invited.status >= 300) throw new Error(`inviting ${login}: ${invited.status} ${await invited.text()}`);
  await expectJson(
    await server.request(`/svc/api/invitations/${projectId}/accept`, { method: 'POST', as: cookie }),
    201,
  );
  return cookie;
}
