import { advance, plan, scriptedAgent } from '@svc/scripted-llm';
import { eventually, startSmtpServer, type SmtpServer } from '@svc/test-kit';
import { BrowserSocket } from '../support/e2e-browser';
import { E2E_TIMEOUT_MS, startStack, type Stack } from '../support/e2e-stack';

const QUESTION_START = 'Budget reached: LLM calls 3/3';

/** One step of three commands, each appending a line to ran.txt: a command run twice shows as a line too many. */
const handler = scriptedAgent({
  title: 'Counting',
  planning: [plan('Count to three')],
  steps: {
    1: [
      { name: 'execute_on_worker', arguments: { command: 'echo one >> ran.txt' } },
      { name: 'execute_on_worker', arguments: { command: 'echo two >> ran.txt' } },
      { name: 'execute_on_worker', arguments: { command: 'echo three >> ran.txt' } },
      advance('counted'),
    ],
  },
});

// Issue 23, budgets with the real worker and the scripted LLM reporting usage: the worker checks before
// every LLM call, the run stops at the cap, and a raise resumes the same step without running anything twice.
// Issue 25: the requester is mailed (a real SMTP server) when the budget is reached and when the run fails.
describe('run budgets over the real server and worker', () => {
  let stack: Stack;
  let browser: BrowserSocket | undefined;
  let smtp: SmtpServer;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    stack = await startStack({ handler, apiEnv: { SMTP_URL: smtp.url, MAIL_FROM: 'svc@example.test' } });
    await stack.alice.json('/me/notifications', {
      method: 'PUT',
      json: { email: { enabled: true, address: 'alice@example.test', events: ['budget_reached', 'failed'] } },
    });
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    browser?.close();
    await stack?.close();
    await smtp?.close();
  });

  /** The mail to alice about run `id` whose subject ends with `headline`. */
  const mailAbout = (id: string, headline: string) =>
    smtp.nextMail((m) => m.to.includes('alice@example.test') && m.text.includes(id) && m.subject.endsWith(headline));

  const create = (budget: Record<string, unknown>) =>
    stack.alice.json<{ id: string }>(`/projects/${stack.projectId}/workflows`, {
      json: { requirement: 'Count to three in ran.txt.', budget },
    });

  it(
    'pauses at the LLM call cap with the budget question, and a raise continues the same step to completion',
    async () => {
      const { alice } = stack;
      const { id } = await create({ max_llm_calls: 3, on_exceed: 'pause' });
      browser = await BrowserSocket.open(stack.api.url, alice.cookie);
      await browser.subscribe(id, 0);

      // planning (1), "one" (2), "two" (3): the fourth call would pass the cap.
      const waiting = await stack.waitForStatus(id, 'waiting_user');
      expect(waiting.question).toBe(`${QUESTION_START}. Raise the budget to continue.`);
      const stopped = await eventually(() => browser!.events('budget_exceeded', id)[0] ?? false, {
        what: 'the budget_exceeded event',
      });
      expect(stopped.data).toMatchObject({ policy: 'pause', reached: ['max_llm_calls'], by: 'worker' });
      expect(await alice.file(id, 'ran.txt')).toBe('one\ntwo\n');
      const before = await alice.json<{ spend: { llm_calls: number }; exceeded: boolean }>(`/workflows/${id}/budget`);
      expect(before).toMatchObject({ spend: { llm_calls: 3 }, reached: ['max_llm_calls'], exceeded: true });
      const mail = await mailAbout(id, 'reached its budget');
      expect(mail.text).toContain(QUESTION_START);

      const raised = await alice.json<{ exceeded: boolean }>(`/workflows/${id}/budget`, {
        method: 'PATCH',
        json: { max_llm_calls: 20 },
      });
      expect(raised).toMatchObject({ budget: { max_llm_calls: 20 }, exceeded: false });

      await stack.waitForStatus(id, 'completed');
      expect(await alice.file(id, 'ran.txt')).toBe('one\ntwo\nthree\n');
      const commands = (await alice.log(id)).filter((e) => e.tool_name === 'execute_on_worker');
      expect(commands.map((e) => e.tool_input)).toEqual([
        'command: echo one >> ran.txt\n',
        'command: echo two >> ran.txt\n',
        'command: echo three >> ran.txt\n',
      ]);
      // planning, three commands, advance, report: each LLM call made once, none past the cap while paused.
      const { items } = await alice.llmCalls(id);
      expect(items.filter((c) => c.phase !== 'title').length).toBe(6);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'fails at the cap with the fail policy',
    async () => {
      const { id } = await create({ max_llm_calls: 2, on_exceed: 'fail' });
      const failed = await stack.waitForStatus(id, 'failed');
      expect(failed.error).toBe('budget exceeded: LLM calls 2/2');
      expect(await stack.alice.file(id, 'ran.txt')).toBe('one\n');
      const budget = await stack.alice.json(`/workflows/${id}/budget`);
      expect(budget).toMatchObject({ spend: { llm_calls: 2 }, exceeded: true });
      await mailAbout(id, 'reached its budget');
      const failedMail = await mailAbout(id, 'failed');
      expect(failedMail.text).toContain('budget exceeded: LLM calls 2/2');
      // one mail per event, whatever the replicas and retries
      const toAlice = smtp.mails.filter((m) => m.to.includes('alice@example.test') && m.text.includes(id));
      expect(toAlice).toHaveLength(2);
    },
    E2E_TIMEOUT_MS,
  );
});
