import {
  eventually,
  openBrowserSocket,
  replicaAnswering,
  Session,
  startBalancedReplicas,
  type ApiProcess,
  type BalancedReplicas,
  type LoadBalancer,
} from '@svc/test-kit';

// The load balancer of the multi-replica tests is a real haproxy (test-kit startLoadBalancer) in front
// of real API processes on one PostgreSQL database: requests spread round-robin with no stickiness,
// WebSockets pass through, and a dead replica is skipped.
describe('haproxy in front of two API processes', () => {
  let deployment: BalancedReplicas;
  let replicas: ApiProcess[];
  let balancer: LoadBalancer;

  beforeAll(async () => {
    deployment = await startBalancedReplicas(2, { env: { LOG_LEVEL: 'warn' } });
    ({ balancer } = deployment);
    replicas = deployment.replicas.replicas;
  });
  afterAll(async () => {
    await deployment?.close();
  });

  it('sends consecutive requests to both replicas in turn', async () => {
    const direct = await Promise.all(replicas.map((r) => replicaAnswering(r.url)));
    expect(new Set(direct).size).toBe(2);
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) seen.push(await replicaAnswering(balancer.url));
    expect(new Set(seen)).toEqual(new Set(direct));
    // Round-robin: no replica answers twice in a row.
    for (let i = 1; i < seen.length; i++) expect(seen[i]).not.toBe(seen[i - 1]);
  });

  it('balances each request of one keep-alive connection on its own (no stickiness)', async () => {
    const seen = new Set<string>();
    // fetch keeps its connection to haproxy alive between these requests.
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${balancer.url}/svc/api/health`);
      seen.add(((await res.json()) as { replica: string }).replica);
    }
    expect(seen.size).toBe(2);
  });

  it('passes WebSocket upgrades through, to either replica', async () => {
    const alice = await Session.signIn(balancer.url, 'alice');
    const project = await alice.json<{ id: string }>('/projects', { json: { name: 'through the balancer' } });
    const workflow = await alice.json<{ id: string }>(`/projects/${project.id}/workflows`, {
      json: { requirement: 'watch me' },
    });
    // Two sockets in a row land on the two replicas; each subscribes over the tunnel.
    for (let i = 0; i < 2; i++) {
      const { ws, inbox } = await openBrowserSocket(balancer, alice.credential);
      ws.send(JSON.stringify({ type: 'subscribe', workflow_id: workflow.id }));
      expect(await inbox.next((m) => m.type === 'subscribed' || m.type === 'error')).toMatchObject({
        type: 'subscribed',
      });
      ws.close();
    }
  });

  it('skips a replica that died', async () => {
    const survivor = await replicaAnswering(replicas[1]!.url);
    const down = balancer.nextStateChange(0, 'DOWN');
    await replicas[0]!.stop('SIGKILL');
    // Even before the health check notices, a refused connection is retried on the other replica.
    for (let i = 0; i < 4; i++) expect(await replicaAnswering(balancer.url)).toBe(survivor);
    await down;
    await eventually(async () => expect(await replicaAnswering(balancer.url)).toBe(survivor));
    for (let i = 0; i < 4; i++) expect(await replicaAnswering(balancer.url)).toBe(survivor);
  });
});
