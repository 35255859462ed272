import examples from '@octokit/webhooks-examples';
import { TEST_PROVIDERS } from '../support/server';
import { body } from '../support/fixtures';
import { forgeWorld } from './standin-world';
import { signForgeDelivery } from '../../src/forges/webhook-signature';
import type { ForgeKind } from '../../src/forges';

/** The fields of the examples these tests change. */
interface ExamplePayload {
  comment: { body: string; author_association: string };
  sender: { type: string };
  pull_request: { number: number };
  [field: string]: unknown;
}

/** A real example payload of `@octokit/webhooks-examples`. */
function example(event: string, action: string): ExamplePayload {
  const found = examples
    .find((e) => e.name === event)
    ?.examples.find((x) => (x as { action?: string }).action === action);
  if (!found) throw new Error(`no example for ${event}.${action}`);
  return structuredClone(found) as unknown as ExamplePayload;
}

// Issue 25, forge side (decision 0047): forge webhooks, signed as each forge signs them, start runs and
// give feedback; a completed run's pull request, status and comment go to a STAND-IN forge API that
// validates every call against the forge's published description.
describe.each(TEST_PROVIDERS)('forge webhooks and pull requests against a stand-in forge on %s', (provider) => {
  // The stand-in forge listens on loopback, an address the API base URL may not have otherwise.
  const world = forgeWorld(provider, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  const connect = (kind: ForgeKind, extra: Record<string, unknown> = {}) =>
    world.connect(kind, { repository: { trigger_label: 'bug', trigger_command: '/svc', ...extra } });
  const deliver = world.deliver;
  const { counts, complete } = world;

  it('stand-in GitHub: a labelled issue (the real issues.labeled example) starts a run; it completes; one PR, status and comment; the review comment revises it', async () => {
    const { forge, project, repository, secret } = await connect('github');
    const payload = example('issues', 'labeled');
    const raw = JSON.stringify(payload);
    const res = await deliver(
      repository.id,
      raw,
      signForgeDelivery('github', secret, raw, { id: 'gh-1', event: 'issues' }),
    );
    expect(res.status).toBe(201);
    const started = await body(res);
    expect(started).toMatchObject({ delivery_id: 'gh-1', event: 'issues', outcome: 'started', replayed: false });
    const run = await body(await world.server.request(`/svc/api/workflows/${started.workflow_id}`, { as: world.ann }));
    expect(run.requirement).toContain('Spelling error in the README file');
    const link = await body(
      await world.server.request(`/svc/api/workflows/${started.workflow_id}/repository`, { as: world.ann }),
    );
    expect(link).toMatchObject({ issue_number: 1, pr_number: null });
    await forge.waitFor(() => forge.comments.some((c) => c.number === 1 && c.body.includes('Started')));

    // the same delivery again: what it did, nothing new
    const again = await deliver(
      repository.id,
      raw,
      signForgeDelivery('github', secret, raw, { id: 'gh-1', event: 'issues' }),
    );
    expect(again.status).toBe(200);
    expect(await body(again)).toEqual({ ...started, replayed: true });
    expect(await counts(project.id, repository.id)).toEqual({ workflows: 1, deliveries: 1 });

    await complete(started.workflow_id, 'c'.repeat(40));
    expect(forge.pulls).toHaveLength(1);
    const pull = forge.pulls[0]!;
    expect(pull).toMatchObject({ head: link.branch, base: link.base_branch, state: 'open' });
    expect(pull.body).toContain(`/workflows/${started.workflow_id}`);
    const after = await body(
      await world.server.request(`/svc/api/workflows/${started.workflow_id}/repository`, { as: world.ann }),
    );
    expect(after).toMatchObject({ pr_number: pull.number, pr_url: pull.url, pr_state: 'open' });
    expect(forge.statuses).toEqual([
      expect.objectContaining({ sha: 'c'.repeat(40), state: 'success', context: 'svc' }),
    ]);
    expect(forge.comments.filter((c) => c.number === pull.number)).toHaveLength(1);
    const events = await world.server.deps.db.event.findMany({
      where: { workflow_id: started.workflow_id, type: 'pull_request_opened' },
    });
    expect(events.map((e) => e.data)).toEqual([
      { url: pull.url, number: pull.number, branch: link.branch, base: link.base_branch },
    ]);

    // a second pass (another replica, a restart, the sweep) opens nothing again
    await world.server.deps.forgeSync!.nudge(started.workflow_id);
    await world.server.deps.forgeSync!.sweep();
    expect(forge.pulls).toHaveLength(1);
    expect(forge.statuses).toHaveLength(1);

    // a reviewer's comment on that PR (the real pull_request_review_comment.created example) is feedback
    const review = example('pull_request_review_comment', 'created');
    review.pull_request.number = pull.number;
    const reviewRaw = JSON.stringify(review);
    const fed = await deliver(
      repository.id,
      reviewRaw,
      signForgeDelivery('github', secret, reviewRaw, { id: 'gh-2', event: 'pull_request_review_comment' }),
    );
    expect(fed.status).toBe(200);
    expect(await body(fed)).toMatchObject({ outcome: 'feedback', workflow_id: started.workflow_id });
    const revised = await body(
      await world.server.request(`/svc/api/workflows/${started.workflow_id}`, { as: world.ann }),
    );
    expect(revised.status).toBe('pending');
    const action = await world.server.deps.db.event.findMany({
      where: { workflow_id: started.workflow_id, type: 'workflow_action' },
    });
    expect(JSON.stringify(action.map((e) => e.data))).toContain('README.md');
    // the revised run's known head gets a pending status
    await world.server.deps.forgeSync!.nudge(started.workflow_id);
    expect(forge.statuses.map((s) => s.state)).toEqual(['success', 'pending']);
  });

  it('stand-in GitHub: a comment with the trigger command starts a run; an untrusted author, a bot or another command does not', async () => {
    const { project, repository, secret } = await connect('github');
    const payload = example('issue_comment', 'created');
    payload.comment.body = '/svc please also update the docs';
    const raw = JSON.stringify(payload);
    const res = await deliver(
      repository.id,
      raw,
      signForgeDelivery('github', secret, raw, { id: 'c-1', event: 'issue_comment' }),
    );
    expect(res.status).toBe(201);
    const run = await body(
      await world.server.request(`/svc/api/workflows/${(await body(res)).workflow_id}`, { as: world.ann }),
    );
    expect(run.requirement).toContain('please also update the docs');
    for (const [id, change] of [
      ['c-2', (p: ExamplePayload) => (p.comment.author_association = 'NONE')],
      ['c-3', (p: ExamplePayload) => (p.sender.type = 'Bot')],
      ['c-4', (p: ExamplePayload) => (p.comment.body = '/svcx do it')],
    ] as const) {
      const other = example('issue_comment', 'created');
      other.comment.body = '/svc do it';
      change(other);
      const otherRaw = JSON.stringify(other);
      const ignored = await deliver(
        repository.id,
        otherRaw,
        signForgeDelivery('github', secret, otherRaw, { id, event: 'issue_comment' }),
      );
      expect(ignored.status).toBe(200);
      expect(await body(ignored)).toMatchObject({ outcome: 'ignored', workflow_id: null });
    }
    expect(await counts(project.id, repository.id)).toEqual({ workflows: 1, deliveries: 1 });
  });

  it.each<ForgeKind>(['github', 'gitea', 'gitlab'])(
    'stand-in %s: forged, unsigned, tampered and other-secret deliveries are refused with the error body; nothing changes',
    async (kind) => {
      const { project, repository, secret } = await connect(kind);
      const payload =
        kind === 'gitlab'
          ? {
              object_kind: 'issue',
              object_attributes: {
                iid: 3,
                title: 'Broken footer',
                description: 'Fix it',
                url: 'https://gitlab.test/i/3',
              },
              changes: { labels: { previous: [], current: [{ title: 'bug' }] } },
            }
          : kind === 'gitea'
            ? {
                action: 'label_updated',
                issue: { number: 3, title: 'Broken footer', body: 'Fix it', labels: [{ name: 'bug' }] },
              }
            : example('issues', 'labeled');
      const event = kind === 'gitlab' ? 'Issue Hook' : 'issues';
      const raw = JSON.stringify(payload);
      const good = signForgeDelivery(kind, secret, raw, { id: `${kind}-ok`, event });
      const signatureHeader = Object.keys(good).find((h) => /signature|token/i.test(h))!;
      const { [signatureHeader]: _dropped, ...unsigned } = good;
      const forged = signForgeDelivery(kind, 'f'.repeat(48), raw, { id: `${kind}-ok`, event });
      const tampered = raw.replace('bug', 'bugs');
      // GitLab sends its secret token as is (it signs nothing): a changed body is not detectable there
      const refusals: (readonly [string, Record<string, string>])[] = [
        [raw, unsigned],
        [raw, forged],
        ...(kind === 'gitlab' ? [] : [[tampered, good] as const]),
      ];
      for (const [bodyText, headers] of refusals) {
        const refused = await deliver(repository.id, bodyText, headers);
        expect(refused.status).toBe(401);
        const error = await body(refused);
        expect(error.error.code).toBe('unauthenticated');
        expect(JSON.stringify(error)).not.toContain(secret);
      }
      expect(await counts(project.id, repository.id)).toEqual({ workflows: 0, deliveries: 0 });
      const unknown = await deliver('nope', raw, good);
      expect(unknown.status).toBe(404);
      // and the correctly signed one starts exactly one run, once
      const ok = await deliver(repository.id, raw, good);
      expect(ok.status).toBe(201);
      expect((await deliver(repository.id, raw, good)).status).toBe(200);
      expect(await counts(project.id, repository.id)).toEqual({ workflows: 1, deliveries: 1 });
    },
  );

  it('rotating the webhook secret answers the new one once; the old one stops verifying; members cannot rotate', async () => {
    const { project, repository, secret } = await connect('gitea');
    const rotated = await world.server.request(`/svc/api/repositories/${repository.id}/rotate-webhook-secret`, {
      method: 'POST',
      as: world.ann,
    });
    expect(rotated.status).toBe(200);
    const answer = await body(rotated);
    expect(answer.webhook_url).toBe(`${world.server.url}/svc/api/hooks/forge/${repository.id}`);
    expect(answer.webhook_secret).not.toBe(secret);
    // Made like the one the repository got when it was connected: same generator, same length.
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(answer.webhook_secret).toMatch(/^[0-9a-f]{64}$/);
    const shown = await body(await world.server.request(`/svc/api/repositories/${repository.id}`, { as: world.ann }));
    expect(JSON.stringify(shown)).not.toContain(answer.webhook_secret);
    const raw = JSON.stringify({
      action: 'label_updated',
      issue: { number: 4, title: 't', body: 'b', labels: [{ name: 'bug' }] },
    });
    expect(
      (await deliver(repository.id, raw, signForgeDelivery('gitea', secret, raw, { id: 'r-1', event: 'issues' })))
        .status,
    ).toBe(401);
    expect(
      (
        await deliver(
          repository.id,
          raw,
          signForgeDelivery('gitea', answer.webhook_secret, raw, { id: 'r-1', event: 'issues' }),
        )
      ).status,
    ).toBe(201);
    const bob = await world.server.login('bob');
    const other = await world.server.request(`/svc/api/repositories/${repository.id}/rotate-webhook-secret`, {
      method: 'POST',
      as: bob,
    });
    expect(other.status).toBe(404);
    expect(project.id).toBeTruthy();
  });
});
