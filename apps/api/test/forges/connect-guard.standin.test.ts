import { startStandInForge, type StandInForge } from '@svc/test-kit';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { body, createProject, recordingSteering } from '../support/fixtures';
import type { ForgeKind } from '../../src/forges';

/**
 * The forge API clients apply the outbound-target rule when they connect, not only when the API base URL
 * is saved (docs/security.md §14): a repository whose API host passed the save check but resolves to an
 * internal address when the run's pull request is opened is refused, with the reason kept on the run's
 * forge action, and nothing reaches the forge. WEBHOOK_ALLOW_PRIVATE_TARGETS lifts the rule.
 */
describe.each(TEST_PROVIDERS)('forge API calls at connect time on %s', (provider) => {
  let server: TestServer;
  let ann: string;
  const forges: StandInForge[] = [];
  beforeAll(async () => {
    // WEBHOOK_ALLOW_PRIVATE_TARGETS unset: internal addresses are refused.
    server = await startTestServer(provider, {}, { steering: recordingSteering() });
    ann = await server.login('ann');
  });
  afterAll(async () => {
    await server?.close();
    await Promise.all(forges.map((forge) => forge.close()));
  });
  afterEach(() => {
    server.deps.config.webhooks.allowPrivateTargets = false;
    for (const forge of forges) expect(forge.violations.splice(0)).toEqual([]);
  });

  it.each<ForgeKind>(['github', 'gitea', 'gitlab'])(
    'stand-in %s: an API host that now resolves to loopback is refused; the error is kept; allowed, the PR opens',
    async (kind) => {
      const forge = await startStandInForge(kind);
      forges.push(forge);
      const project = await createProject(server, ann, `Guard ${kind}`);
      // Saved with a public host name: the save check passes.
      const saved = await server.request(`/svc/api/projects/${project.id}/repositories`, {
        method: 'POST',
        as: ann,
        json: {
          name: 'widgets',
          url: forge.cloneUrl,
          forge: kind,
          api_base_url: kind === 'github' ? 'https://forge.example.com/api/v3' : 'https://forge.example.com',
          credential: { kind: 'token', value: forge.token },
        },
      });
      expect(saved.status).toBe(201);
      const repository = await body<{ id: string }>(saved);
      // Later the name resolves inside: here the stand-in's base under `localhost` (127.0.0.1).
      const inside = forge.apiBaseUrl.replace('127.0.0.1', 'localhost');
      await server.deps.db.repository.update({ where: { id: repository.id }, data: { api_base_url: inside } });

      const created = await server.request(`/svc/api/projects/${project.id}/workflows`, {
        method: 'POST',
        as: ann,
        json: { requirement: 'Add a footer', repository: { id: repository.id } },
      });
      expect(created.status).toBe(201);
      const workflow = await body<{ id: string }>(created);
      // The run completes with its branch pushed: the server opens its pull request.
      await server.deps.db.workflowRepository.update({
        where: { workflow_id: workflow.id },
        data: { pushed_at: new Date(), head_sha: 'c'.repeat(40) },
      });
      await server.deps.db.workflow.update({ where: { id: workflow.id }, data: { status: 'completed' } });
      await server.deps.forgeSync!.nudge(workflow.id);

      const action = await server.deps.db.forgeAction.findUniqueOrThrow({
        where: { workflow_id_kind: { workflow_id: workflow.id, kind: 'pr' } },
      });
      expect(action).toMatchObject({ state: 'pending', attempts: 1 });
      expect(action.last_error).toMatch(/refused: localhost resolves to an internal address \(127\.0\.0\.1\)/);
      expect(action.last_error).not.toContain(forge.token);
      expect(forge.requests).toEqual([]);
      expect(forge.pulls).toEqual([]);
      const record = await server.deps.db.workflowRepository.findUniqueOrThrow({ where: { workflow_id: workflow.id } });
      expect(record.pr_number).toBeNull();

      // With WEBHOOK_ALLOW_PRIVATE_TARGETS the same repository's forge is called: the retry opens the PR.
      server.deps.config.webhooks.allowPrivateTargets = true;
      await server.deps.db.forgeAction.update({ where: { id: action.id }, data: { lease_until: new Date(0) } });
      await server.deps.forgeSync!.nudge(workflow.id);
      expect(forge.pulls).toHaveLength(1);
      expect(await server.deps.db.forgeAction.findUniqueOrThrow({ where: { id: action.id } })).toMatchObject({
        state: 'done',
        last_error: null,
      });
      expect(
        (await server.deps.db.workflowRepository.findUniqueOrThrow({ where: { workflow_id: workflow.id } })).pr_number,
      ).toBe(forge.pulls[0]!.number);
    },
  );
});
