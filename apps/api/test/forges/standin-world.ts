import { startStandInForge, type StandInForge } from '@svc/test-kit';
import { startTestServer, type TestServer } from '../support/server';
import { body, createProject, recordingSteering } from '../support/fixtures';
import type { ForgeKind } from '../../src/forges';

type StandInOptions = NonNullable<Parameters<typeof startStandInForge>[1]>;

/** What the forge tests share: one server (steering recorded), `ann` signed in, the stand-ins started. */
export interface ForgeWorld {
  readonly server: TestServer;
  readonly ann: string;
  /**
   * A stand-in forge of `kind` and a repository connected to it in a new project of ann's (its API base
   * the stand-in's unless `repository` names another); the webhook secret shown at the connect.
   */
  connect(
    kind: ForgeKind,
    options?: { forge?: StandInOptions; repository?: Record<string, unknown> },
  ): Promise<{ forge: StandInForge; project: { id: string }; repository: { id: string }; secret: string }>;
  /** A forge delivery to the repository's hook, as posted by the forge. */
  deliver(repositoryId: string, raw: string, headers: Record<string, string>): Promise<Response>;
  /** The project's runs and the repository's recorded deliveries. */
  counts(projectId: string, repositoryId: string): Promise<{ workflows: number; deliveries: number }>;
  /** What the worker and the engine do at the end of a run: the branch pushed at `headSha`, the run completed. */
  complete(workflowId: string, headSha: string): Promise<void>;
}

/**
 * Registers the hooks of a forge test file: the server on `provider` with `env`, the stand-ins closed after
 * all, and after each test a check that no stand-in saw a request or answer its description refuses.
 */
export function forgeWorld(provider: Parameters<typeof startTestServer>[0], env: Record<string, string>): ForgeWorld {
  let server: TestServer | undefined;
  let ann = '';
  const forges: StandInForge[] = [];
  beforeAll(async () => {
    server = await startTestServer(provider, env, { steering: recordingSteering() });
    ann = await server.login('ann');
  });
  afterAll(async () => {
    await server?.close();
    await Promise.all(forges.map((forge) => forge.close()));
  });
  afterEach(() => {
    for (const forge of forges) expect(forge.violations.splice(0)).toEqual([]);
  });
  const started = () => {
    if (!server) throw new Error('the forge world is used before its beforeAll ran');
    return server;
  };
  return {
    get server() {
      return started();
    },
    get ann() {
      return ann;
    },
    async connect(kind, options = {}) {
      const forge = await startStandInForge(kind, options.forge);
      forges.push(forge);
      const project = await createProject(started(), ann, `Forge ${kind} ${forges.length}`);
      const res = await started().request(`/svc/api/projects/${project.id}/repositories`, {
        method: 'POST',
        as: ann,
        json: {
          name: 'widgets',
          url: forge.cloneUrl,
          forge: kind,
          api_base_url: forge.apiBaseUrl,
          credential: { kind: 'token', value: forge.token },
          ...options.repository,
        },
      });
      expect(res.status).toBe(201);
      const repository = await body(res);
      return { forge, project, repository, secret: repository.webhook_secret as string };
    },
    deliver: (repositoryId, raw, headers) =>
      started().request(`/svc/api/hooks/forge/${repositoryId}`, {
        method: 'POST',
        body: raw,
        headers: { 'content-type': 'application/json', ...headers },
      }),
    counts: async (projectId, repositoryId) => ({
      workflows: await started().deps.db.workflow.count({ where: { project_id: projectId } }),
      deliveries: await started().deps.db.forgeDelivery.count({ where: { repository_id: repositoryId } }),
    }),
    async complete(workflowId, headSha) {
      const { db, forgeSync } = started().deps;
      await db.workflowRepository.update({
        where: { workflow_id: workflowId },
        data: { pushed_at: new Date(), head_sha: headSha },
      });
      await db.agentStateSnapshot.create({
        data: { workflow_id: workflowId, seq: 1, phase: 'done', current_step: 0, steps: [], memo: [] },
      });
      await db.workflow.update({ where: { id: workflowId }, data: { status: 'completed' } });
      await forgeSync!.nudge(workflowId);
    },
  };
}
