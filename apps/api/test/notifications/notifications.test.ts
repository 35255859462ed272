import {
  startChatReceiver,
  snapshot,
  startSmtpServer,
  eventually,
  TestWorker,
  workerToken,
  type ChatReceiver,
  type ReceivedMail,
  type SmtpServer,
} from '@svc/test-kit';
import type { RunOutboxEvent } from '../../src/notifications';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { addMember, body, createProject, createWorkflow } from '../support/fixtures';

const ANSWER_LINK = /http:\/\/[^\s"<>]+\/svc\/answer\/([A-Za-z0-9_-]{43})/;
/** The mail's text with the line ends SMTP gave it (CRLF) as the message was written. */
const lf = (text: string) => text.replace(/\r\n/g, '\n');
const linkOf = (mail: ReceivedMail) => {
  const match = ANSWER_LINK.exec(mail.text);
  if (!match) throw new Error(`no answer link in the mail:\n${mail.text}`);
  return match[0];
};

/** The answer page's form post: the answer and the question the page showed. */
const answerForm = (answer: string, seq: string) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ answer, question_seq: seq }).toString(),
});

// Issue 25 (decision 0045): notifications by e-mail through a real SMTP server process and by chat webhooks
// to real HTTP receivers; the single-use answer link of a waiting-for-input mail; the throttle.
describe.each(TEST_PROVIDERS)('notifications on %s', (provider) => {
  let server: TestServer;
  let smtp: SmtpServer;
  let chat: ChatReceiver;
  let token: string;
  let alice: string;
  let bob: string;
  let carol: string;
  let projectId: string;
  /** one worker for every run of the suite (a closed worker's runs would be handed to the next one first) */
  let worker: TestWorker;
  let eventCount = 0;

  beforeAll(async () => {
    smtp = await startSmtpServer({ auth: { user: 'svc-mailer', pass: 's3cret p@ss' } });
    chat = await startChatReceiver();
    server = await startTestServer(provider, {
      SMTP_URL: smtp.url,
      MAIL_FROM: 'svc <svc@example.test>',
      NOTIFY_THROTTLE_PER_RUN_HOUR: '2',
      // the receivers listen on loopback, which chat webhooks (like outbound webhooks) refuse by default
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    });
    token = await workerToken(server);
    alice = await server.login('alice');
    bob = await server.login('bob');
    carol = await server.login('carol');
    projectId = (await createProject(server, alice, 'Notified')).id;
    await addMember(server, alice, projectId, 'bob');
    worker = await TestWorker.start(server, token, 'notified-worker', 100);
    worker.keepAlive();
  }, 60_000);
  afterAll(async () => {
    worker?.close();
    await server?.close();
    await smtp?.close();
    await chat?.close();
  });

  const prefs = (as: string, json: unknown) => server.request('/svc/api/me/notifications', { method: 'PUT', as, json });
  const userId = async (login: string) => (await server.deps.db.user.findUniqueOrThrow({ where: { login } })).id;

  /** A run a real worker socket took up and moved to `waiting_user` with `question`. */
  async function waitingRun(question: string, options: Record<string, unknown> = {}) {
    const { id } = await createWorkflow(server, alice, projectId, 'Ship the shop');
    const { last_seq } = await worker.dispatch(id, 'start');
    const seq = { next: (last_seq as number) + 1 };
    await worker.store(id, seq.next++, { kind: 'status', data: { status: 'planning' } });
    await worker.store(id, seq.next++, snapshot('executing', 0, ['running', 'pending']));
    await worker.store(id, seq.next++, { kind: 'status', data: { status: 'waiting_user', question, ...options } });
    return { id, seq };
  }

  /** The outbox's event of this kind for the run (what the outbox hands the `notifications` consumer). */
  const outboxEvent = (
    type: RunOutboxEvent['type'],
    workflowId: string,
    data: Record<string, unknown> = {},
  ): RunOutboxEvent => ({
    id: `evt-${provider}-${++eventCount}`,
    type,
    project_id: projectId,
    workflow_id: workflowId,
    created_at: new Date().toISOString(),
    data,
  });
  const deliver = (event: RunOutboxEvent) => server.deps.notifications.notifier.handle(event);
  const runDeliveries = async (workflowId: string) =>
    (await server.deps.db.notificationDelivery.findMany({ where: { workflow_id: workflowId } })).map((d) => [
      d.channel,
      d.status,
    ]);
  const deliveries = async (eventId: string) =>
    (
      await server.deps.db.notificationDelivery.findMany({ where: { event_id: eventId }, orderBy: { channel: 'asc' } })
    ).map((d) => [d.channel, d.status]);

  it('preferences: defaults, a change, the chat URL never shown, bad input changing nothing', async () => {
    const empty = await body(await server.request('/svc/api/me/notifications', { as: carol }));
    expect(empty).toEqual({
      email: { enabled: false, address: null, effective_address: null, events: [], available: true },
      chat: { enabled: false, format: 'slack', url_set: false, url_host: null, events: [] },
      projects: null,
      throttle_per_run_hour: 2,
    });
    const hookUrl = `${chat.url}/services/T000/B000/XXXXSECRETXXXX`;
    const put = await prefs(carol, {
      email: { enabled: true, address: 'carol@example.test', events: ['completed', 'waiting_for_input', 'completed'] },
      chat: { enabled: true, format: 'discord', url: hookUrl, events: ['failed'] },
    });
    expect(put.status).toBe(200);
    const text = await put.text();
    expect(text).not.toContain('XXXXSECRETXXXX');
    expect(JSON.parse(text)).toMatchObject({
      email: { enabled: true, effective_address: 'carol@example.test', events: ['waiting_for_input', 'completed'] },
      chat: { enabled: true, format: 'discord', url_set: true, url_host: new URL(chat.url).host, events: ['failed'] },
    });
    // stored encrypted, in the secrets table under its own scope
    const secret = await server.deps.db.secret.findFirstOrThrow({ where: { owner_key: await userId('carol') } });
    expect(secret.scope).toBe('notification');
    expect(secret.ciphertext).not.toContain('XXXXSECRETXXXX');

    const before = await body(await server.request('/svc/api/me/notifications', { as: carol }));
    for (const bad of [
      { email: { events: ['exploded'] } },
      { chat: { url: 'ftp://example.test/hook' } },
      { chat: { url: 'http://user:pw@example.test/hook' } },
      { email: { address: 'not an address' } },
      { projects: [projectId] }, // carol is no member of it
      { surprise: true },
    ]) {
      const res = await prefs(carol, bad);
      expect(res.status).toBe(400);
      expect((await body(res)).error.code).toBe('invalid_input');
    }
    expect(await body(await server.request('/svc/api/me/notifications', { as: carol }))).toEqual(before);

    // a project-narrowed api token cannot touch personal settings
    const narrowed = await body(
      await server.request('/svc/api/token', {
        method: 'POST',
        as: alice,
        json: { scope: 'api', project_id: projectId },
      }),
    );
    expect((await server.request('/svc/api/me/notifications', { as: narrowed.token })).status).toBe(403);
    expect((await server.request('/svc/api/me/notifications')).status).toBe(401);
  });

  it('send test: a mail reaches the SMTP server, a chat message the webhook; a failing webhook is a 503', async () => {
    await prefs(bob, {
      email: { enabled: true, address: 'bob@example.test' },
      chat: { enabled: true, format: 'slack', url: `${chat.url}/bob-test` },
    });
    const mailed = smtp.nextMail((m) => m.to.includes('bob@example.test') && /test notification/.test(m.subject));
    const res = await server.request('/svc/api/me/notifications/test', {
      method: 'POST',
      as: bob,
      json: { channel: 'email' },
    });
    expect(res.status).toBe(200);
    expect(await body(res)).toEqual({ channel: 'email', to: 'bob@example.test', delivered: true });
    const mail = await mailed;
    expect(mail.from).toBe('svc@example.test');
    expect(mail.text).toContain('bob');

    const posted = chat.nextRequest((r) => r.path === '/bob-test');
    const sent = await server.request('/svc/api/me/notifications/test', {
      method: 'POST',
      as: bob,
      json: { channel: 'chat' },
    });
    expect(await body(sent)).toEqual({ channel: 'chat', to: new URL(chat.url).host, delivered: true });
    expect((await posted).json).toMatchObject({ text: expect.stringContaining('svc test notification') });

    chat.failNext(1, 500);
    const failed = await server.request('/svc/api/me/notifications/test', {
      method: 'POST',
      as: bob,
      json: { channel: 'chat' },
    });
    expect(failed.status).toBe(503);
    expect((await body(failed)).error).toMatchObject({ code: 'unavailable', message: 'the chat webhook answered 500' });
    await prefs(bob, { email: { enabled: false }, chat: { enabled: false, url: null } });
  });

  it('waiting for input: a mail with a single-use answer link that answers like the REST answer, then refuses', async () => {
    await prefs(alice, { email: { enabled: true, address: 'alice@example.test', events: ['waiting_for_input'] } });
    await prefs(carol, { email: { enabled: true, address: 'carol@example.test', events: ['waiting_for_input'] } });
    // the worker's question commits the outbox event `run.waiting_for_input`; the consumer mails it
    const { id } = await waitingRun('Which port should the shop listen on?');
    const mail = await smtp.nextMail((m) => m.to.includes('alice@example.test') && m.text.includes(id));
    expect(mail.subject).toContain('is waiting for your answer');
    expect(mail.text).toContain('Which port should the shop listen on?');
    // carol is not a member of the project: nothing for her
    await eventually(async () => (await runDeliveries(id)).some(([, status]) => status === 'sent'), {
      what: "alice's delivery to be recorded as sent",
    });
    expect(await runDeliveries(id)).toEqual([['email', 'sent']]);
    expect(await server.deps.db.notificationDelivery.count({ where: { user_id: await userId('carol') } })).toBe(0);

    const link = linkOf(mail);
    // looking at the page (a mail scanner does) does not use the link
    for (let i = 0; i < 2; i++) {
      const page = await fetch(link);
      expect(page.status).toBe(200);
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(await page.text()).toContain('Which port should the shop listen on?');
    }
    const page = await (await fetch(link)).text();
    const seq = /name="question_seq" value="(\d+)"/.exec(page)![1]!;
    const post = (answer: string, questionSeq = seq) => fetch(link, answerForm(answer, questionSeq));

    const answered = await post('8080, please');
    expect(answered.status).toBe(200);
    expect(await answered.text()).toContain('Your answer was sent');
    // the same path as POST /workflows/{id}/answer: the status, the action event by alice, the worker steered
    const dispatch = await worker.dispatch(id, 'answer');
    expect(dispatch.message).toBe('8080, please');
    const run = await body(await server.request(`/svc/api/workflows/${id}`, { as: alice }));
    expect(run).toMatchObject({ status: 'running', question: null });
    const events = await server.deps.db.event.findMany({ where: { workflow_id: id, type: 'workflow_action' } });
    const answeredEvent = events.map((e) => (typeof e.data === 'string' ? JSON.parse(e.data) : e.data)).at(-1);
    expect(answeredEvent).toMatchObject({ action: 'answered', message: '8080, please', actor: { login: 'alice' } });

    // used once: refused the second time, the page and the post alike
    const again = await post('9090');
    expect(again.status).toBe(410);
    expect(await again.text()).toContain('was used already');
    expect((await fetch(link)).status).toBe(410);
    expect((await server.deps.db.workflow.findUniqueOrThrow({ where: { id } })).status).toBe('running');
    // an unknown token
    expect((await fetch(link.replace(/[A-Za-z0-9_-]{43}$/, 'A'.repeat(43)))).status).toBe(404);
  });

  it('answer link of a question with choices: a button per choice, the default and its time; a non-choice is refused and leaves the link usable', async () => {
    await prefs(alice, { email: { enabled: true, address: 'alice@example.test', events: ['waiting_for_input'] } });
    const { id } = await waitingRun('Deploy now?', {
      choices: ['yes', 'no <later>'],
      default: 'no <later>',
      timeout_seconds: 3600,
    });
    const link = linkOf(await smtp.nextMail((m) => m.to.includes('alice@example.test') && m.text.includes(id)));
    const deadline = (await server.deps.db.workflow.findUniqueOrThrow({ where: { id } })).question_deadline!;
    const page = await (await fetch(link)).text();
    expect(page).toContain('<button type="submit" name="answer" value="yes">yes</button>');
    expect(page).toContain(
      '<button type="submit" name="answer" value="no &lt;later&gt;">no &lt;later&gt; (default)</button>',
    );
    expect(page).not.toContain('<textarea');
    expect(page).toContain(`“no &lt;later&gt;” is given automatically at <time datetime="${deadline.toISOString()}">`);
    const seq = /name="question_seq" value="(\d+)"/.exec(page)![1]!;
    const post = (answer: string) => fetch(link, answerForm(answer, seq));

    const refused = await post('maybe');
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain(
      'The answer must be one of the choices: &quot;yes&quot;, &quot;no &lt;later&gt;&quot;',
    );
    expect((await server.deps.db.workflow.findUniqueOrThrow({ where: { id } })).status).toBe('waiting_user');
    expect((await fetch(link)).status).toBe(200);

    // a button press posts its choice
    const answered = await post('no <later>');
    expect(answered.status).toBe(200);
    expect((await worker.dispatch(id, 'answer')).message).toBe('no <later>');
  });

  it('waiting for input: the mail (text and HTML) and the Slack, Teams and Discord messages list the choices, the default and its time; a question without them reads as before (decision 0082)', async () => {
    await prefs(alice, {
      email: { enabled: true, address: 'alice@example.test', events: ['waiting_for_input'] },
      chat: { enabled: true, format: 'slack', url: `${chat.url}/choices`, events: ['waiting_for_input'] },
    });
    const options = { choices: ['yes', 'no <later>'], default: 'no <later>', timeout_seconds: 3600 };
    const choicesLine = 'Choices: "yes", "no <later>"';
    const { id } = await waitingRun('Deploy to production?', options);
    const deadline = (await server.deps.db.workflow.findUniqueOrThrow({ where: { id } })).question_deadline!;
    const defaultLine = `Default: "no <later>", given automatically at ${deadline.toISOString()} without an answer`;
    const chatTo = (path: string) => chat.nextRequest((r) => r.path === path && r.body.includes(id));

    const mail = await smtp.nextMail((m) => m.to.includes('alice@example.test') && m.text.includes(id));
    expect(lf(mail.text)).toContain(`Question:\nDeploy to production?\n\n${choicesLine}\n\n${defaultLine}\n\n`);
    expect(linkOf(mail)).toContain('/svc/answer/');
    expect(mail.html).toContain(
      '<p><strong>Choices</strong></p><ul><li>yes</li><li>no &lt;later&gt; (default)</li></ul>',
    );
    expect(mail.html).toContain(
      `<p><strong>Default</strong>: &quot;no &lt;later&gt;&quot;, given automatically at ${deadline.toISOString()} without an answer</p>`,
    );
    expect(mail.html).toMatch(/<a href="http:\/\/[^"]+\/svc\/answer\/[A-Za-z0-9_-]{43}">Answer the question<\/a>/);

    const slack = (await chatTo('/choices')).json as { text: string; blocks: Record<string, unknown>[] };
    expect(slack.text).toContain(`Question:\nDeploy to production?\n${choicesLine}\n${defaultLine}\n<`);
    expect(slack.blocks[1]).toEqual({
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: '*Choices*\n"yes", "no &lt;later&gt;"' },
        {
          type: 'mrkdwn',
          text: `*Default*\n${defaultLine.slice('Default: '.length).replace('<later>', '&lt;later&gt;')}`,
        },
      ],
    });
    expect(slack.blocks).toHaveLength(3);

    // the same question handed over again reaches the other formats (two chat messages a run are allowed)
    await prefs(alice, { email: { enabled: false }, chat: { format: 'teams', url: `${chat.url}/choices-teams` } });
    await deliver(outboxEvent('run.waiting_for_input', id));
    expect((await chatTo('/choices-teams')).json).toMatchObject({
      '@type': 'MessageCard',
      text: 'Question:\nDeploy to production?',
      sections: [
        {
          facts: [
            { name: 'Choices', value: '"yes", "no <later>"' },
            { name: 'Default', value: defaultLine.slice('Default: '.length) },
          ],
        },
      ],
    });
    await prefs(alice, { chat: { enabled: false } });
    await prefs(bob, {
      chat: { enabled: true, format: 'discord', url: `${chat.url}/choices-discord`, events: ['waiting_for_input'] },
    });
    await deliver(outboxEvent('run.waiting_for_input', id));
    const discord = (await chatTo('/choices-discord')).json as { content: string };
    expect(discord.content).toContain(
      `Question:\nDeploy to production?\n**Choices:** "yes", "no <later>"\n**Default:** ${defaultLine.slice('Default: '.length)}\n`,
    );
    await prefs(bob, { chat: { enabled: false, url: null } });

    // a free-text question: nothing added
    await prefs(alice, {
      email: { enabled: true },
      chat: { enabled: true, format: 'slack', url: `${chat.url}/plain` },
    });
    const plain = await waitingRun('Which region?');
    const plainMail = await smtp.nextMail((m) => m.to.includes('alice@example.test') && m.text.includes(plain.id));
    expect(lf(plainMail.text)).toContain('Question:\nWhich region?\n\nAnswer from this link');
    expect(plainMail.text).not.toMatch(/Choices|Default/);
    expect(plainMail.html).not.toMatch(/Choices|Default|<ul>/);
    const plainSlack = (await chat.nextRequest((r) => r.path === '/plain' && r.body.includes(plain.id))).json as {
      text: string;
      blocks: unknown[];
    };
    expect(plainSlack.text).toMatch(/^\S.* is waiting for your answer\nQuestion:\nWhich region\?\n<http/);
    expect(plainSlack.blocks).toEqual([
      {
        type: 'section',
        text: { type: 'mrkdwn', text: expect.stringMatching(/\*\nQuestion:\nWhich region\?$/) },
      },
      { type: 'section', text: { type: 'mrkdwn', text: expect.stringMatching(/\|Open the run>$/) } },
    ]);
    await prefs(alice, { email: { enabled: false }, chat: { enabled: false, url: null } });
  });

  it('answer link: refused after expiry, after the question was answered elsewhere, for a stale question, and for a removed member', async () => {
    await prefs(bob, { email: { enabled: true, address: 'bob@example.test', events: ['waiting_for_input'] } });
    // the outbox mails each question as the run asks it
    const linkFor = async (runId: string, to: string) =>
      linkOf(await smtp.nextMail((m) => m.to.includes(to) && m.text.includes(runId)));
    const seqOf = async (link: string) =>
      /name="question_seq" value="(\d+)"/.exec(await (await fetch(link)).text())![1]!;

    // answered through the REST endpoint first: the link's question is closed
    const first = await waitingRun('Blue or green?');
    const closed = await linkFor(first.id, 'bob@example.test');
    const closedSeq = await seqOf(closed);
    expect(
      (
        await server.request(`/svc/api/workflows/${first.id}/answer`, {
          method: 'POST',
          as: alice,
          json: { answer: 'blue' },
        })
      ).status,
    ).toBe(200);
    const refused = await fetch(closed, answerForm('green', closedSeq));
    expect(refused.status).toBe(410);
    expect(await refused.text()).toContain('answered already or replaced');

    // expired
    const second = await waitingRun('Tabs or spaces?');
    const expired = await linkFor(second.id, 'bob@example.test');
    const expiredSeq = await seqOf(expired);
    await server.deps.db.answerLink.updateMany({
      where: { workflow_id: second.id },
      data: { expires_at: new Date(0) },
    });
    const late = await fetch(expired, answerForm('tabs', expiredSeq));
    expect(late.status).toBe(410);
    expect(await late.text()).toContain('expired');

    // a form typed for another question than the open one
    const third = await waitingRun('Monday or Friday?');
    const stale = await linkFor(third.id, 'bob@example.test');
    expect((await fetch(stale, answerForm('Monday', String(Number(await seqOf(stale)) - 1)))).status).toBe(410);

    // bob leaves the project: his link no longer answers (and the run still waits)
    const fourth = await waitingRun('Ship today?');
    const bobs = await linkFor(fourth.id, 'bob@example.test');
    const bobsSeq = await seqOf(bobs);
    expect(
      (
        await server.request(`/svc/api/projects/${projectId}/members/${await userId('bob')}`, {
          method: 'DELETE',
          as: alice,
        })
      ).status,
    ).toBe(204);
    const removed = await fetch(bobs, answerForm('yes', bobsSeq));
    expect(removed.status).toBe(403);
    expect((await server.deps.db.workflow.findUniqueOrThrow({ where: { id: fourth.id } })).status).toBe('waiting_user');
    // and hears nothing more: membership is checked again at send time
    const after = outboxEvent('run.waiting_for_input', fourth.id);
    await deliver(after);
    expect(
      await server.deps.db.notificationDelivery.count({ where: { event_id: after.id, user_id: await userId('bob') } }),
    ).toBe(0);
    await addMember(server, alice, projectId, 'bob');
    await prefs(bob, { email: { enabled: false } });
  });

  it('chat webhooks: Slack, Teams and Discord JSON to real receivers, only the events asked for', async () => {
    await prefs(alice, {
      email: { enabled: false },
      chat: { enabled: true, format: 'slack', url: `${chat.url}/slack`, events: ['completed', 'failed'] },
    });
    const { id } = await waitingRun('Deploy?');
    const slack = chat.nextRequest((r) => r.path === '/slack' && r.body.includes(id));
    const done = outboxEvent('run.completed', id, { report_url: 'https://example.test/report' });
    await deliver(done);
    const posted = await slack;
    expect(posted.headers['content-type']).toBe('application/json');
    expect(posted.json).toMatchObject({ text: expect.stringContaining('completed'), blocks: expect.any(Array) });
    expect(posted.body).toContain(`/projects/${projectId}/workflows/${id}`);
    expect(await deliveries(done.id)).toEqual([['chat', 'sent']]);
    // waiting_for_input is not among alice's chat events
    const waiting = outboxEvent('run.waiting_for_input', id);
    await deliver(waiting);
    expect(await deliveries(waiting.id)).toEqual([]);

    await prefs(alice, { chat: { format: 'teams', url: `${chat.url}/teams` } });
    const teams = chat.nextRequest((r) => r.path === '/teams');
    await deliver(outboxEvent('run.failed', id, { error: 'the build broke' }));
    expect((await teams).json).toMatchObject({ '@type': 'MessageCard', title: expect.stringContaining('failed') });

    await prefs(alice, { chat: { format: 'discord', url: `${chat.url}/discord` } });
    const discord = chat.nextRequest((r) => r.path === '/discord');
    await deliver(outboxEvent('run.completed', id));
    expect((await discord).json).toMatchObject({
      content: expect.stringContaining('completed'),
      allowed_mentions: { parse: [] },
    });
    await prefs(alice, { chat: { enabled: false, url: null } });
  });

  it('delivery: a failing webhook fails the event for the outbox to retry; the retry sends what failed, never twice what was sent', async () => {
    await prefs(alice, {
      email: { enabled: true, address: 'alice@example.test', events: ['failed'] },
      chat: { enabled: true, format: 'slack', url: `${chat.url}/retry`, events: ['failed'] },
    });
    const { id } = await waitingRun('Retry?');
    const event = outboxEvent('run.failed', id, { error: 'boom' });
    chat.failNext(1, 503);
    await expect(deliver(event)).rejects.toThrow('the chat webhook answered 503');
    expect(await deliveries(event.id)).toEqual([
      ['chat', 'failed'],
      ['email', 'sent'],
    ]);
    const retried = chat.nextRequest((r) => r.path === '/retry' && r.status === 200);
    await deliver(event);
    await retried;
    expect(await deliveries(event.id)).toEqual([
      ['chat', 'sent'],
      ['email', 'sent'],
    ]);
    await deliver(event); // a third hand-over of the same event sends nothing
    const mails = smtp.mails.filter((m) => m.to.includes('alice@example.test') && m.text.includes(id));
    expect(mails).toHaveLength(1);
    expect(chat.requests.filter((r) => r.path === '/retry' && r.status === 200)).toHaveLength(1);
    await prefs(alice, { email: { enabled: false }, chat: { enabled: false, url: null } });
  });

  it('throttle: at most NOTIFY_THROTTLE_PER_RUN_HOUR messages per person, run and channel; final outcomes pass', async () => {
    await prefs(alice, {
      email: { enabled: true, address: 'alice@example.test', events: ['budget_reached', 'completed'] },
      projects: [projectId],
    });
    const { id } = await waitingRun('Question one?');
    const events = [1, 2, 3].map(() => outboxEvent('run.budget_reached', id, { message: 'Raise the budget?' }));
    for (const event of events) await deliver(event);
    expect(await Promise.all(events.map((e) => deliveries(e.id)))).toEqual([
      [['email', 'sent']],
      [['email', 'sent']],
      [['email', 'throttled']],
    ]);
    expect(smtp.mails.filter((m) => m.text.includes(id)).map((m) => m.text.includes('Raise the budget?'))).toEqual([
      true,
      true,
    ]);
    const completed = outboxEvent('run.completed', id);
    await deliver(completed);
    expect(await deliveries(completed.id)).toEqual([['email', 'sent']]);
    // another run has its own allowance
    const other = await waitingRun('Question of another run?');
    const fresh = outboxEvent('run.budget_reached', other.id, { message: 'More?' });
    await deliver(fresh);
    expect(await deliveries(fresh.id)).toEqual([['email', 'sent']]);
    // limited to other projects: nothing
    const elsewhere = (await createProject(server, alice, 'Elsewhere')).id;
    await prefs(alice, { projects: [elsewhere] });
    const filtered = outboxEvent('run.completed', other.id);
    await deliver(filtered);
    expect(await deliveries(filtered.id)).toEqual([]);
    await prefs(alice, { email: { enabled: false }, projects: null });
  });
});
