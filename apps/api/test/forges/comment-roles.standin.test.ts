import { startStandInForge, type StandInForge } from '@svc/test-kit';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { body, createProject, recordingSteering } from '../support/fixtures';
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
  let server: TestServer;
  let ann: string;
  const forges: StandInForge[] = [];
  beforeAll(async () => {
    // The stand-in forge listens on loopback.
    server = await startTestServer(
      provider,
      { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
      { steering: recordingSteering() },
    );
    ann = await server.login('ann');
  });
  afterAll(async () => {
    await server?.close();
    await Promise.all(forges.map((forge) => forge.close()));
  });
  afterEach(() => {
    for (const forge of forges) expect(forge.violations.splice(0)).toEqual([]);
  });

  const connect = async (kind: Kind) => {
    const forge = await startStandInForge(kind, {
      members: {
        [MAINTAINER.login]: { id: MAINTAINER.id, permission: 'write' },
        [REPORTER.login]: { id: REPORTER.id, permission: 'read' },
      },
    });
    forges.push(forge);
    const project = await createProject(server, ann, `Roles ${kind} ${forges.length}`);
    const res = await server.request(`/svc/api/projects/${project.id}/repositories`, {
      method: 'POST',
      as: ann,
      json: {
        name: 'widgets',
        url: forge.cloneUrl,
        forge: kind,
        api_base_url: forge.apiBaseUrl,
        credential: { kind: 'token', value: forge.token },
        trigger_command: '/svc',
      },
    });
    expect(res.status).toBe(201);
    const repository = await body(res);
    return { forge, project, repository, secret: repository.webhook_secret as string };
  };
  const deliver = (
    kind: Kind,
    repository: { id: string },
    secret: string,
    id: string,
    delivery: { event: string; payload: unknown },
  ) => {
    const raw = JSON.stringify(delivery.payload);
    return server.request(`/svc/api/hooks/forge/${repository.id}`, {
      method: 'POST',
      body: raw,
      headers: {
        'content-type': 'application/json',
        ...signForgeDelivery(kind, secret, raw, { id, event: delivery.event }),
      },
    });
  };
  const counts = async (projectId: string, repositoryId: string) => ({
    workflows: await server.deps.db.workflow.count({ where: { project_id: projectId } }),
    deliveries: await server.deps.db.forgeDelivery.count({ where: { repository_id: repositoryId } }),
  });
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
      const run = await body(await server.request(`/svc/api/workflows/${result.workflow_id}`, { as: ann }));
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
      await server.deps.db.workflowRepository.update({
        where: { workflow_id: workflowId },
        data: { pushed_at: new Date(), head_sha: 'd'.repeat(40) },
      });
      await server.deps.db.agentStateSnapshot.create({
        data: { workflow_id: workflowId, seq: 1, phase: 'done', current_step: 0, steps: [], memo: [] },
      });
      await server.deps.db.workflow.update({ where: { id: workflowId }, data: { status: 'completed' } });
      await server.deps.forgeSync!.nudge(workflowId);
      // The pull request is opened, recorded and commented on (in that order).
      await forge.waitFor(() => forge.pulls.length === 1 && forge.comments.some((c) => c.body.includes('Opened by')));
      const pull = forge.pulls[0]!.number;
      const actions = () => server.deps.db.event.count({ where: { workflow_id: workflowId, type: 'workflow_action' } });
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
      expect((await body(await server.request(`/svc/api/workflows/${workflowId}`, { as: ann }))).status).toBe(
        'completed',
      );

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
      expect((await body(await server.request(`/svc/api/workflows/${workflowId}`, { as: ann }))).status).toBe(
        'pending',
      );
      expect(await counts(project.id, repository.id)).toEqual({ workflows: 1, deliveries: 2 });
    },
  );
});
