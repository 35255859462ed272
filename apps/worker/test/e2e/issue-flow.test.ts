import { createHmac } from 'node:crypto';
import examples from '@octokit/webhooks-examples';
import { advance, plan, scriptedAgent } from '@svc/scripted-llm';
import type { Repository, WorkflowRepository } from '@svc/protocol';
import {
  EventStream,
  startGitHttpServer,
  startSmtpServer,
  startStandInForge,
  type GitHttpServer,
  type ReceivedMail,
  type SmtpServer,
  type StandInForge,
} from '@svc/test-kit';
import { writingTheAnswer } from '../support/answer-writer';
import { E2E_TIMEOUT_MS, startStack, type Stack } from '../support/e2e-stack';

const TOKEN = 'e2e-issue-flow-token-3f8a21';
const QUESTION = 'Should the greeting say "Hello" or "Hi"?';
const PLAN = ['Choose the greeting', 'Fix the README'];
const REVISED = [...PLAN, 'Apply the review'];
const REPORT = '# Report\n\nThe README spells the greeting right now.';

/**
 * Step 1 asks the requester and writes the answer to greeting.txt; step 2 fixes the README; a review
 * comment revises the plan with a third step that writes what the reviewer asked for.
 */
const agent = writingTheAnswer(
  scriptedAgent({
    title: 'Spelling fix',
    planning: [plan(...PLAN)],
    revise: [plan(...REVISED)],
    steps: {
      1: [{ name: 'ask_user', arguments: { question: QUESTION } }],
      2: [{ name: 'write_file', arguments: { path: 'README.md', content: '# site\n\nHello, world.\n' } }, advance()],
      3: [{ name: 'write_file', arguments: { path: 'CHANGELOG.md', content: '- Fixed a typo\n' } }, advance()],
    },
    report: REPORT,
  }),
  'greeting.txt',
);

/** A real example payload of `@octokit/webhooks-examples`, as GitHub sends it. */
function example(
  event: string,
  action: string,
): Record<string, unknown> & {
  label?: { name: string };
  pull_request?: { number: number };
} {
  const found = examples
    .find((e) => e.name === event)
    ?.examples.find((x) => (x as { action?: string }).action === action);
  if (!found) throw new Error(`no example for ${event}.${action}`);
  return structuredClone(found) as never;
}

const ANSWER_LINK = /http:\/\/[^\s"<>]+\/svc\/answer\/[A-Za-z0-9_-]{43}/;

/**
 * Issue 25's "Done when", end to end with real parts: the API and worker processes, a real git HTTP
 * server (lighttpd + git http-backend, authenticated), a real SMTP server, and a STAND-IN GitHub API that
 * validates every call against GitHub's OpenAPI description. A repository is connected, an issue is
 * labelled (GitHub's real `issues.labeled` example, signed as GitHub signs), the run asks the requester
 * by mail and is answered from the mail's link without a session, the branch is pushed and a pull request
 * opened with the report; a reviewer's comment revises the run and its new commit goes to the same branch.
 */
describe('from a labelled issue to a revised pull request', () => {
  let stack: Stack;
  let git: GitHttpServer;
  let forge: StandInForge;
  let smtp: SmtpServer;

  beforeAll(async () => {
    git = await startGitHttpServer({
      users: { 'x-access-token': TOKEN },
      repos: { site: { files: { 'README.md': '# site\n\nHelo, wrold.\n' } } },
    });
    // The forge API knows the repository by the clone URL's path (`git/site`).
    forge = await startStandInForge('github', { owner: 'git', repo: 'site', token: TOKEN });
    smtp = await startSmtpServer();
    stack = await startStack({
      handler: agent,
      // The git server and the forge listen on loopback, addresses outbound targets may not have otherwise.
      apiEnv: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', SMTP_URL: smtp.url, MAIL_FROM: 'svc@example.test' },
    });
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    await stack?.close();
    await Promise.all([git?.close(), forge?.close(), smtp?.close()]);
  });
  afterEach(() => expect(forge.violations.splice(0)).toEqual([]));

  it(
    'a labelled issue becomes a PR with the run commits and report; the answer comes from the mail link; a review revises it',
    async () => {
      const { alice } = stack;
      // alice connects the repository and wants mail when a run waits for her
      const repository = await alice.json<Repository & { webhook_url: string; webhook_secret: string }>(
        `/projects/${stack.projectId}/repositories`,
        {
          json: {
            name: 'site',
            url: git.repoUrl('site'),
            forge: 'github',
            api_base_url: forge.apiBaseUrl,
            credential: { kind: 'token', value: TOKEN },
            trigger_label: 'svc',
          },
        },
      );
      await alice.json('/me/notifications', {
        method: 'PUT',
        json: { email: { enabled: true, address: 'alice@example.test', events: ['waiting_for_input', 'completed'] } },
      });

      // GitHub delivers "issue labelled svc" to the webhook URL the repository shows
      const labelled = example('issues', 'labeled');
      labelled.label = { ...labelled.label!, name: 'svc' };
      const started = await deliver(repository, 'issues', 'delivery-1', labelled);
      expect(started.status).toBe(201);
      const { workflow_id: id, outcome } = (await started.json()) as { workflow_id: string; outcome: string };
      expect(outcome).toBe('started');
      const run = await alice.workflow(id);
      expect(run.requirement).toContain('Spelling error in the README file');
      await forge.waitFor(() => forge.comments.some((c) => c.number === 1 && c.body.includes(`/workflows/${id}`)));

      // the agent asks; alice gets a mail and answers from its link, signed in nowhere
      const mail = await smtp.nextMail((m) => m.to.includes('alice@example.test') && m.text.includes(QUESTION));
      expect(mail.subject).toContain('is waiting for your answer');
      const answered = await answerFromLink(mail, 'Hello');
      expect(answered).toContain('Your answer was sent');

      const done = await stack.waitForStatus(id, 'completed');
      const link = await alice.json<WorkflowRepository>(`/workflows/${id}/repository`);
      const { branch } = link;
      expect(branch).toMatch(new RegExp(`^svc/${done.number}-spelling-error`));
      expect(link).toMatchObject({ base_branch: 'main', issue_number: 1, push_error: null });
      await forge.waitFor(() => forge.pulls.length === 1 && forge.statuses.some((s) => s.state === 'success'));
      const [pull] = forge.pulls;
      expect(pull).toMatchObject({ head: branch, base: 'main', state: 'open' });
      expect(pull!.body).toContain('The README spells the greeting right now.');
      expect(pull!.body).toContain(`/workflows/${id}`);
      expect(commitsOn(branch)).toEqual(PLAN);
      expect(git.git('site', ['show', `${branch}:greeting.txt`])).toBe('Hello');
      expect(forge.statuses.at(-1)).toMatchObject({ sha: git.git('site', ['rev-parse', branch]).trim() });
      // the PR link is in the run's record (the run header and report show it) and its events
      const opened = await alice.json<WorkflowRepository>(`/workflows/${id}/repository`);
      expect(opened).toMatchObject({ pr_number: pull!.number, pr_url: pull!.url });
      const prEvents = await eventsOf(id, 'pull_request_opened');
      expect(prEvents).toEqual([expect.objectContaining({ url: pull!.url, number: pull!.number, branch })]);
      await smtp.nextMail((m) => m.to.includes('alice@example.test') && /completed/i.test(m.subject));

      // a reviewer's comment on the PR is feedback: the run revises its plan and pushes to the same branch
      const review = example('pull_request_review_comment', 'created');
      review.pull_request = { ...review.pull_request!, number: pull!.number };
      const fed = await deliver(repository, 'pull_request_review_comment', 'delivery-2', review);
      expect(fed.status).toBe(200);
      expect(await fed.json()).toMatchObject({ outcome: 'feedback', workflow_id: id });
      await stack.waitForStatus(id, 'completed');
      const head = git.git('site', ['rev-parse', branch]).trim();
      await forge.waitFor(() => forge.statuses.some((s) => s.sha === head && s.state === 'success'));
      expect(commitsOn(branch)).toEqual(REVISED);
      expect(git.git('site', ['show', `${branch}:CHANGELOG.md`])).toBe('- Fixed a typo\n');
      expect(forge.pulls).toHaveLength(1);
      const plan = await alice.plan(id);
      expect(plan.map((s) => [s.title, s.status])).toEqual(REVISED.map((title) => [title, 'done']));
      // still one pull request: the revision's push did not open another
      expect(await eventsOf(id, 'pull_request_opened')).toHaveLength(1);
      expect(JSON.stringify(await alice.log(id))).not.toContain(TOKEN);
    },
    // Two runs of a real worker, a mail and a forge round trip: twice an e2e test's room.
    2 * E2E_TIMEOUT_MS,
  );

  /** A delivery to the repository's forge hook, signed with its secret as GitHub signs (X-Hub-Signature-256). */
  function deliver(
    repository: { webhook_url: string; webhook_secret: string },
    event: string,
    delivery: string,
    payload: unknown,
  ): Promise<Response> {
    const body = JSON.stringify(payload);
    return fetch(new URL(repository.webhook_url, stack.api.url), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': event,
        'x-github-delivery': delivery,
        'x-hub-signature-256': `sha256=${createHmac('sha256', repository.webhook_secret).update(body).digest('hex')}`,
      },
      body,
    });
  }

  /** Opens the mail's answer link (no cookie) and posts the form it shows; the confirmation page's text. */
  async function answerFromLink(mail: ReceivedMail, answer: string): Promise<string> {
    const url = ANSWER_LINK.exec(mail.text)?.[0];
    if (!url) throw new Error(`no answer link in the mail:\n${mail.text}`);
    const page = await (await fetch(url)).text();
    const seq = /name="question_seq" value="(\d+)"/.exec(page)?.[1];
    if (!seq) throw new Error(`no question on the answer page:\n${page}`);
    const post = () =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ answer, question_seq: seq }).toString(),
      });
    const answered = await post();
    expect(answered.status).toBe(200);
    // single use: the same link refuses a second answer
    expect((await post()).status).toBe(410);
    return answered.text();
  }

  /** The data of the run's stored events of one type, read from its event stream up to the newest. */
  async function eventsOf(id: string, type: string): Promise<unknown[]> {
    const sse = await EventStream.open(
      stack.api.url,
      `/svc/api/workflows/${id}/events?since_seq=0`,
      stack.alice.cookie,
    );
    try {
      // `subscribed` follows the replay of every stored event
      await sse.next((e) => e.event === 'subscribed', 'the end of the replay');
      return sse.events.filter((e) => e.event === type).map((e) => (JSON.parse(e.data) as { data: unknown }).data);
    } finally {
      sse.close();
    }
  }

  /** The subjects of the branch's commits over main, oldest first. */
  function commitsOn(branch: string): string[] {
    return git
      .git('site', ['log', '--reverse', '--format=%s', `main..${branch}`])
      .trim()
      .split('\n')
      .filter(Boolean);
  }
});
