import { eventually, expectJson, startReplicas, type Replicas } from '@svc/test-kit';
import { CLUSTER_TIMEOUT_MS } from './cluster';

jest.setTimeout(CLUSTER_TIMEOUT_MS);

/** DELETE /tokens/{id} on one replica reaches every replica through the existing revocation mechanism. */
describe('revoking a recorded token across two API replicas on PostgreSQL', () => {
  let replicas: Replicas;
  beforeAll(async () => {
    replicas = await startReplicas(2, { env: { LOG_LEVEL: 'warn' } });
  });
  afterAll(async () => replicas?.close());

  it('is refused on the replica that revoked it at once, and on the other as soon as the bus brings it', async () => {
    const [a, b] = replicas.replicas as [(typeof replicas.replicas)[0], (typeof replicas.replicas)[0]];
    const ann = await a.login('ann');
    const { token } = await expectJson<{ token: string }>(
      await a.request('/svc/api/token', { method: 'POST', as: ann, json: { name: 'CI' } }),
      201,
    );
    // Both replicas have verified (and remembered) the token before it is revoked.
    expect((await a.request('/svc/api/me', { as: token })).status).toBe(200);
    expect((await b.request('/svc/api/me', { as: token })).status).toBe(200);
    const [listed] = await expectJson<{ id: string }[]>(await b.request('/svc/api/tokens', { as: ann }), 200);

    expect((await a.request(`/svc/api/tokens/${listed!.id}`, { method: 'DELETE', as: ann })).status).toBe(204);
    expect((await a.request('/svc/api/me', { as: token })).status).toBe(401);
    // The cluster bus delivers the revocation within milliseconds (the cache re-reads the table within 2 s anyway).
    await eventually(async () => expect((await b.request('/svc/api/me', { as: token })).status).toBe(401));
    const [after] = await expectJson<{ revoked_at: string | null }[]>(
      await b.request('/svc/api/tokens', { as: ann }),
      200,
    );
    expect(after!.revoked_at).toEqual(expect.any(String));
  });
});
