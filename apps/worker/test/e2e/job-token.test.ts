import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { advance, plan, scriptedAgent } from '@svc/scripted-llm';
import { E2E_TIMEOUT_MS, FIRST_WORKER, startStack, type Stack } from '../support/e2e-stack';

/** What the agent's command does with its SVC_JWT: call the API as the job, and keep the evidence. */
const COMMAND = [
  'curl -fsS -H "Authorization: Bearer $SVC_JWT" "$SVC_URL/svc/api/workflows/$SVC_WORKFLOW_ID" > api-workflow.json',
  'printf %s "$SVC_JWT" > jwt.txt',
  `curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer $SVC_JWT" -H 'content-type: application/json' -d '{"name":"x"}' "$SVC_URL/svc/api/projects" > create-project.status`,
].join(' && ');

describe('SVC_JWT inside a command', () => {
  let stack: Stack;
  const keyDir = mkdtempSync(path.join(tmpdir(), 'svc-e2e-key-'));
  const keyFile = path.join(keyDir, 'jwt.pem');

  beforeAll(async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    stack = await startStack({
      apiEnv: { JWT_PRIVATE_KEY: keyFile },
      handler: scriptedAgent({
        planning: [plan('Call the API')],
        steps: { 1: [{ name: 'execute_on_worker', arguments: { command: COMMAND } }, advance('called')] },
      }),
    });
    // A second worker holding the server's key signs SVC_JWT itself instead of asking the server.
    await stack.startWorker('signer', { jwt_private_key: keyFile });
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    await stack?.close();
    rmSync(keyDir, { recursive: true, force: true });
  });

  it.each([
    ['a server-issued job token', FIRST_WORKER],
    ['a token the worker signed with the shared key', 'signer'],
  ])(
    'is %s that verifies against the JWKS and acts only as the job of its workflow',
    async (_kind, worker) => {
      const { alice, api } = stack;
      const workerId = await alice.workerId(worker);
      const workflow = await alice.createWorkflow(stack.projectId, `Call the API from a command on ${worker}.`, {
        worker_id: workerId,
      });
      const done = await stack.waitForStatus(workflow.id, 'completed');
      expect(done.worker_id).toBe(workerId);

      // The command read its own workflow through the API with the token.
      const seen = JSON.parse(await alice.file(workflow.id, 'api-workflow.json')) as {
        id: string;
        project_id: string;
        requirement: string;
      };
      expect(seen).toMatchObject({ id: workflow.id, project_id: stack.projectId, requirement: workflow.requirement });
      // A job token is no person: it cannot create projects.
      expect(await alice.file(workflow.id, 'create-project.status')).toBe('403');

      const token = await alice.file(workflow.id, 'jwt.txt');
      const jwks = (await (await fetch(`${api.url}/svc/api/.well-known/jwks.json`)).json()) as JSONWebKeySet;
      const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks), {
        issuer: 'svc',
        audience: 'svc',
        algorithms: ['ES256'],
      });
      expect(protectedHeader.kid).toBe(jwks.keys[0]?.kid);
      expect(decodeProtectedHeader(token).alg).toBe('ES256');
      expect(payload).toMatchObject({
        sub: `job:${workflow.id}`,
        scope: 'job',
        workflow_id: workflow.id,
        project_id: stack.projectId,
      });
      expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBeLessThanOrEqual(3600);
    },
    E2E_TIMEOUT_MS,
  );
});
