import { TEST_PROVIDERS } from '../support/server';
import { body } from '../support/fixtures';
import { forgeWorld } from './standin-world';
import type { ForgeKind } from '../../src/forges';

/**
 * The forge API clients apply the outbound-target rule when they connect, not only when the API base URL
 * is saved (docs/security.md §14): a repository whose API host passed the save check but resolves to an
 * internal address when the run's pull request is opened is refused, with the reason kept on the run's
 * forge action, and nothing reaches the forge. WEBHOOK_ALLOW_PRIVATE_TARGETS lifts the rule.
 */
describe.each(TEST_PROVIDERS)('forge API calls at connect time on %s', (provider) => {
  // WEBHOOK_ALLOW_PRIVATE_TARGETS unset: internal addresses are refused.
  const world = forgeWorld(provider, {});
  afterEach(() => {
    world.server.deps.config.webhooks.allowPrivateTargets = false;
  });

  it.each<ForgeKind>(['github', 'gitea', 'gitlab'])(
    'stand-in %s: an API host that now resolves to loopback is refused; the error is kept; allowed, the PR opens',
    async (kind) => {
      // Saved with a public host name: the save check passes.
      const { forge, project, repository } = await world.connect(kind, {
        repository: {
          api_base_url: kind === 'github' ? 'https://forge.example.com/api/v3' : 'https://forge.example.com',
        },
      });
      // Later the name resolves inside: here the stand-in's base under `localhost` (127.0.0.1).
      const inside = forge.apiBaseUrl.replace('127.0.0.1', 'localhost');
      await world.server.deps.db.repository.update({ where: { id: repository.id }, data: { api_base_url: inside } });

      const created = await world.server.request(`/svc/api/projects/${project.id}/workflows`, {
        method: 'POST',
        as: world.ann,
        json: { requirement: 'Add a footer', repository: { id: repository.id } },
      });
      expect(created.status).toBe(201);
      const workflow = await body<{ id: string }>(created);
      // The run completes with its branch pushed: the server opens its pull request.
      await world.complete(workflow.id, 'c'.repeat(40));

      const action = await world.server.deps.db.forgeAction.findUniqueOrThrow({
        where: { workflow_id_kind: { workflow_id: workflow.id, kind: 'pr' } },
      });
      expect(action).toMatchObject({ state: 'pending', attempts: 1 });
      expect(action.last_error).toMatch(/refused: localhost resolves to an internal address \(127\.0\.0\.1\)/);
      expect(action.last_error).not.toContain(forge.token);
      expect(forge.requests).toEqual([]);
      expect(forge.pulls).toEqual([]);
      const record = await world.server.deps.db.workflowRepository.findUniqueOrThrow({
        where: { workflow_id: workflow.id },
      });
      expect(record.pr_number).toBeNull();

      // With WEBHOOK_ALLOW_PRIVATE_TARGETS the same repository's forge is called: the retry opens the PR.
      world.server.deps.config.webhooks.allowPrivateTargets = true;
      await world.server.deps.db.forgeAction.update({ where: { id: action.id }, data: { lease_until: new Date(0) } });
      await world.server.deps.forgeSync!.nudge(workflow.id);
      expect(forge.pulls).toHaveLength(1);
      expect(await world.server.deps.db.forgeAction.findUniqueOrThrow({ where: { id: action.id } })).toMatchObject({
        state: 'done',
        last_error: null,
      });
      expect(
        (await world.server.deps.db.workflowRepository.findUniqueOrThrow({ where: { workflow_id: workflow.id } }))
          .pr_number,
      ).toBe(forge.pulls[0]!.number);
    },
  );
});
