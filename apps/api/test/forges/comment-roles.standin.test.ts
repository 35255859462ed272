import type { StandInForge } from '@svc/test-kit';
import { TEST_PROVIDERS } from '../support/server';
import { body } from '../support/fixtures';
import { forgeWorld } from './standin-world';
import { signForgeDelivery } from '../../src/forges/webhook-signature';

type Kind = 'gitea' | 'gitlab';

/** Gitea/GitLab comment deliveries as those forges send them (the fields the service reads). */
const deliveries = {
  gitea: {
    command: (user: { id: number; login: string }, text: string) => ({
      event: 'issue_comment',
      payload: {
        action: 'created',
        is_pull: false,
        issue: { number: 5, title: 'Broken footer', body: 'Fix it', html_url: 'https://gitea.test/i/5', labels: [] },
        comment: { id: 1, body: text, user: { id: user.id, login: user.login } },
        sender: { id: user.id, login: user.login },
      },
    }),
    review: (user: { id: number; login: string }, pull: number, text: string) => ({
      event: 'pull_request_comment',
      payload: {
        action: 'created',
        is_pull: true,
        issue: { number: pull, title: 'PR', body: '', pull_request: {} },
        comment: { id: 2, body: text, user: { id: user.id, login: user.login } },
        sender: { id: user.id, login: user.login },
      },
    }),
  },
  gitlab: {
    command: (user: { id: number; login: string }, text: string) => ({
      event: 'Note Hook',
      payload: {
        object_kind: 'note',
        user: { id: user.id, username: user.login },
        object_attributes: { note: text, noteable_type: 'Issue', author_id: user.id },
        issue: { iid: 5, title: 'Broken footer', description: 'Fix it', url: 'https://gitlab.test/i/5' },
      },
    }),
    review: (user: { id: number; login: string }, pull: number, text: string) => ({
      event: 'Note Hook',
      payload: {
        object_kind: 'note',
        user: { id: user.id, username: user.login },
        object_attributes: { note: text, noteable_type: 'MergeRequest', author_id: user.id },
        merge_request: { iid: pull },
      },
    }),
  },
};

const MAINTAINER = { id: 11, login: 'maria' };
const REPORTER = { id: 12, login: 'rita' };
const STRANGER = { id: 13, login: 'sam' };

// Gitea and GitLab payloads do not carry the commenter's role: the service asks the forge (Gitea's
// collaborator permission, GitLab's project membership) before a comment starts or revises a run.
describe.each(TEST_PROVIDERS)('comment authors on Gitea and GitLab against a stand-in forge on %s', (provider) => {
  // The stand-in forge listens on loopback.
  const world = forgeWorld(provider, { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  const connect = (kind: Kind) =>
    world.connect(kind, {
      forge: {
        members: {
          [MAINTAINER.login]: { id: MAINTAINER.id, permission: 'write' },
          [REPORTER.login]: { id: REPORTER.id, permission: 'read' },
        },
      },
      repository: { trigger_command: '/svc' },
    });
  const deliver = (
    kind: Kind,
    repository: { id: string },
    secret: string,
    id: string,
    delivery: { event: string; payload: unknown },
  ) => {
    const raw = JSON.stringify(delivery.payload);
    return world.deliver(repository.id, raw, signForgeDelivery(kind, secret, raw, { id, event: delivery.event }));
  };
  const { counts, complete } = world;
  const roleCalls = (forge: StandInForge) =>
    forge.requests.filter((r) => /\/(collaborators\/[^/]+\/permission|members\/all\/[^/]+)$/.test(r.path));

  it.each<Kind>(['gitea', 'gitlab'])(
    'stand-in %s: a trusted commenter starts a run; a reader and a stranger are ignored and nothing is made',
    async (kind) => {
      const { forge, project, repository, secret } = await connect(kind);
      for (const [id, user] of [
        ['r-1', REPORTER],
        ['s-1', STRANGER],
      ] as const) {
        const ignored = await deliver(kind, repository, secret, id, deliveries[kind].command(user, '/svc fix it'));
        expect(ignored.status).toBe(200);
        expect(await body(ignored)).toMatchObject({
          outcome: 'ignored',
          workflow_id: null,
          reason: expect.stringContaining('may not write'),
        });
      }
      expect(await counts(project.id, repository.id)).toEqual({ workflows: 0, deliveries: 0 });
      // Each was asked of the forge, by login (Gitea) or user id (GitLab).
      expect(roleCalls(forge).map((r) => r.path.split('/').slice(-2).join('/'))).toEqual(
        kind === 'gitea' ? ['rita/permission', 'sam/permission'] : [`all/${REPORTER.id}`, `all/${STRANGER.id}`],
      );

      const started = await deliver(
        kind,
        repository,
        secret,
        'm-1',
        deliveries[kind].command(MAINTAINER, '/svc fix it'),
      );
      expect(started.status).toBe(201);
      const result = await body(started);
      expect(result).toMatchObject({ outcome: 'started' });
      const run = await body(await world.server.request(`/svc/api/workflows/${result.workflow_id}`, { as: world.ann }));
      expect(run.requirement).toContain('Broken footer');
      expect(await counts(project.id, repository.id)).toEqual({ workflows: 1, deliveries: 1 });

      // The maintainer loses write access: the next command of theirs is ignored.
      forge.members.set(MAINTAINER.login, { id: MAINTAINER.id, permission: 'read' });
      const demoted = await deliver(
        kind,
        repository,
        secret,
        'm-2',
        deliveries[kind].command(MAINTAINER, '/svc again'),
      );
      expect(await body(demoted)).toMatchObject({ outcome: 'ignored' });
      expect(await counts(project.id, repository.id)).toEqual({ workflows: 1, deliveries: 1 });
    },
  );

  it.each<Kind>(['gitea', 'gitlab'])(
    'stand-in %s: a trusted reviewer revises the run of its pull request; an untrusted one is ignored',
    async (kind) => {
      const { forge, project, repository, secret } = await connect(kind);
      const started = await body(
        await deliver(kind, repository, secret, 'm-1', deliveries[kind].command(MAINTAINER, '/svc fix it')),
      );
      const workflowId = started.workflow_id as string;
      // The run completes with its branch pushed: the server opens its pull request on the stand-in.
      await complete(workflowId, 'd'.repeat(40));
      // The pull request is opened, recorded and commented on (in that order).
      await forge.waitFor(() => forge.pulls.length === 1 && forge.comments.some((c) => c.body.includes('Opened by')));
      const pull = forge.pulls[0]!.number;
      const actions = () =>
        world.server.deps.db.event.count({ where: { workflow_id: workflowId, type: 'workflow_action' } });
      const before = await actions();

      const ignored = await deliver(
        kind,
        repository,
        secret,
        'r-1',
        deliveries[kind].review(REPORTER, pull, 'rename it'),
      );
      expect(ignored.status).toBe(200);
      expect(await body(ignored)).toMatchObject({
        outcome: 'ignored',
        workflow_id: null,
        reason: expect.stringContaining('may not write'),
      });
      expect(await actions()).toBe(before);
      expect(
        (await body(await world.server.request(`/svc/api/workflows/${workflowId}`, { as: world.ann }))).status,
      ).toBe('completed');

      const fed = await deliver(
        kind,
        repository,
        secret,
        'm-2',
        deliveries[kind].review(MAINTAINER, pull, 'rename it'),
      );
      expect(fed.status).toBe(200);
      const fedResult = await body(fed);
      expect(fedResult).toMatchObject({ outcome: 'feedback', workflow_id: workflowId, reason: null });
      expect(
        (await body(await world.server.request(`/svc/api/workflows/${workflowId}`, { as: world.ann }))).status,
      ).toBe('pending');
      expect(await counts(project.id, repository.id)).toEqual({ workflows: 1, deliveries: 2 });
    },
  );
});
