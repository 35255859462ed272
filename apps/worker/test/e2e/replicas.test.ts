import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { plan, scriptedAgent, startScriptedLlm, type RunningScriptedLlm } from '@svc/scripted-llm';
import { eventually, startReplicas, type ApiProcess, type ManagedProcess, type Replicas } from '@svc/test-kit';
import { ApiClient } from '../support/e2e-client';
import { E2E_TIMEOUT_MS } from '../support/e2e-stack';
import { startWorkerProcess } from '../support/e2e-worker';
import { hostPidsOf, uniqueSleep } from '../support/procs';

/**
 * The real worker CLI connected to replica A of two API replicas (one PostgreSQL database, one data
 * directory); the user works through replica B.
 */
describe('the real worker on one of two API replicas', () => {
  let cluster: Replicas;
  let llm: RunningScriptedLlm;
  let worker: ManagedProcess;
  let dir: string;
  const seconds = uniqueSleep(300);

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'svc-replicas-e2e-'));
    llm = await startScriptedLlm({
      port: 0,
      handler: scriptedAgent({
        planning: [plan('Wait a long time', 'Never reached')],
        steps: { 1: [{ name: 'execute_on_worker', arguments: { command: `sleep ${seconds}`, timeout_seconds: 600 } }] },
      }),
    });
    cluster = await startReplicas(2, { provider: 'postgresql', env: { LOG_LEVEL: 'warn' } });
  }, E2E_TIMEOUT_MS);

  afterAll(async () => {
    await worker?.stop('SIGTERM');
    await cluster?.close();
    await llm?.close();
    rmSync(dir, { recursive: true, force: true });
  }, E2E_TIMEOUT_MS);

  it(
    'a workflow created and cancelled through B runs on the worker connected to A, whose command is killed',
    async () => {
      const [a, b] = cluster.replicas as [ApiProcess, ApiProcess];
      const root = await ApiClient.signIn(a.url, 'root');
      const onB = await ApiClient.signIn(b.url, 'alice');
      const token = await root.workerToken();
      worker = startWorkerProcess({ dir, serverUrl: a.url, token, llmUrl: llm.url, name: 'on-a' });
      const { id: projectId } = await onB.createProject('replicas');
      await eventually(
        async () => (await onB.json<{ name: string; status: string }[]>('/workers')).some((w) => w.status === 'online'),
        {
          what: 'the worker to register with A',
          detail: () => worker.tail(),
        },
      );
      const { id } = await onB.createWorkflow(projectId, 'Sleep for five minutes.');
      await eventually(() => hostPidsOf(['sleep', seconds]).length > 0, {
        what: 'the command to start on the worker connected to A',
        detail: () => [worker, a.process, b.process].map((p) => p.tail()).join('\n'),
      });
      expect((await onB.json<{ status: string }>(`/workflows/${id}/cancel`, { json: {} })).status).toBe('cancelled');
      // The command would run for 300 s: the test's time limit only stops a hang.
      await eventually(() => hostPidsOf(['sleep', seconds]).length === 0, {
        what: 'the command to be killed',
        detail: () => worker.tail(),
      });
      expect((await onB.workflow(id)).status).toBe('cancelled');
    },
    E2E_TIMEOUT_MS,
  );
});
