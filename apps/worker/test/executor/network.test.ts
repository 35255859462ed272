import { generateKeyPairSync } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually } from '@svc/test-kit';
import { Executor } from '../../src/executor/executor';
import { LocalJobTokenSigner } from '../../src/executor/job-token';
import { DEFAULT_SANDBOX_SETTINGS, Sandbox, type SandboxSettings } from '../../src/executor/sandbox';
import { hostAddresses } from '../../src/executor/sandbox-network';
import { hostPidsOf, isAlive, uniqueSleep } from '../support/procs';

const listen = async <T extends Server | HttpServer>(server: T, host: string): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as { port: number }).port;
};

/**
 * A TCP connect from the test process itself: proves the target is there for anyone on the host. The
 * reply is read (and dropped) so the socket closes: a half-closed one whose reply is never read stays
 * open and kept jest from exiting after the run, once the private address it talked to was removed.
 */
const reachableFromHost = (host: string, port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({ host, port }, () => {
      socket.resume().end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

/** bash's /dev/tcp connect: prints `open <label>` or bash's error. */
const tryConnect = (label: string, host: string, port: number): string =>
  `(exec 3<>/dev/tcp/${host}/${port}) 2>/dev/null && echo "open ${label}" || echo "closed ${label}"`;

/** Children of this process (the executor's) named `name`: the per-command slirp4netns. */
function childrenNamed(name: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return ppid === process.pid && readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/**
 * Finding 2 of issue 21: commands get a network namespace of their own with egress through
 * slirp4netns that refuses the host's loopback (the real PostgreSQL the tests run on 127.0.0.1:5432),
 * the host's own addresses and private ranges; SVC_URL (a real HTTP server here) stays reachable.
 */
describe('the command sandbox network (bwrap + slirp4netns) through the executor', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-sandbox-net-'));
  const api = createHttpServer((req, res) => res.end(`api saw ${req.method} ${req.url}\n`));
  const hostService = createServer((socket) => socket.end('host service\n'));
  let apiPort: number;
  let hostServicePort: number;
  let makeExecutor: (settings: Partial<SandboxSettings>) => Executor;

  beforeAll(async () => {
    apiPort = await listen(api, '127.0.0.1');
    hostServicePort = await listen(hostService, '0.0.0.0');
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const signer = await LocalJobTokenSigner.fromPem(privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), {
      issuer: 'svc',
      audience: 'svc',
    });
    makeExecutor = (settings) =>
      new Executor({
        baseEnv: { PATH: process.env.PATH },
        secretEnvNames: [],
        serverUrl: `http://127.0.0.1:${apiPort}`,
        workspaceRoot: path.join(dir, 'workspaces'),
        jobTokens: signer,
        defaultTimeoutSeconds: 60,
        sandbox: new Sandbox({ ...DEFAULT_SANDBOX_SETTINGS, ...settings }),
      });
  });
  afterAll(() => {
    api.close();
    hostService.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses the host PostgreSQL, the host service on every host address and slirp gateway; reaches SVC_URL', async () => {
    expect(await reachableFromHost('127.0.0.1', 5432)).toBe(true);
    const addresses = hostAddresses();
    expect(addresses.length).toBeGreaterThan(0);
    for (const address of addresses) expect(await reachableFromHost(address, hostServicePort)).toBe(true);
    const probe = [
      `psql -h 127.0.0.1 -U postgres -c 'select 1' 2>&1 | head -1`,
      tryConnect('pg', '127.0.0.1', 5432),
      tryConnect('slirp-gateway', '10.0.2.2', 5432),
      tryConnect('host-service-loopback', '127.0.0.1', hostServicePort),
      ...addresses.map((a) => tryConnect(`host-address-${a}`, a, hostServicePort)),
      'curl -sS "$SVC_URL/from-sandbox?x=1" -H "authorization: Bearer $SVC_JWT"',
    ].join('\n');
    const result = await makeExecutor({}).run({ workflowId: 'wf-net', command: probe });
    expect(result.output).toMatch(
      /psql: error: connection to server at "127\.0\.0\.1", port 5432 failed: Connection refused/,
    );
    expect(result.output).toContain('closed pg\n');
    expect(result.output).toContain('closed slirp-gateway\n');
    expect(result.output).toContain('closed host-service-loopback\n');
    for (const address of addresses) expect(result.output).toContain(`closed host-address-${address}\n`);
    expect(result.output).toContain('api saw GET /from-sandbox?x=1\n');
    expect(result.output).not.toContain('open ');
  });

  it('reaches SVC_URL with sandbox_network: false too, and nothing else', async () => {
    const command = [
      tryConnect('pg', '127.0.0.1', 5432),
      tryConnect('public', '1.1.1.1', 80),
      'curl -sS "$SVC_URL/offline"',
    ].join('\n');
    const result = await makeExecutor({ network: false }).run({ workflowId: 'wf-offline', command });
    expect(result.output).toBe('closed pg\nclosed public\napi saw GET /offline\n');
  });

  it('keeps its routes: the command cannot remove them', async () => {
    const command = 'ip route del unreachable 10.0.0.0/8 2>&1; ip route del default 2>&1; ip route show';
    const result = await makeExecutor({}).run({ workflowId: 'wf-routes', command });
    expect(result.output).toContain('RTNETLINK answers: Operation not permitted');
    expect(result.output).toMatch(/^unreachable 10\.0\.0\.0\/8/m);
    expect(result.output).toMatch(/^unreachable 169\.254\.0\.0\/16/m);
    expect(result.output).toMatch(/^default via 10\.0\.2\.2 dev tap0/m);
  });

  it('ends slirp4netns with the command', async () => {
    const seconds = uniqueSleep(600);
    const controller = new AbortController();
    const running = makeExecutor({}).run({
      workflowId: 'wf-slirp',
      command: `sleep ${seconds}`,
      signal: controller.signal,
    });
    await eventually(() => hostPidsOf(['sleep', seconds]).length > 0, { what: 'the command to run' });
    const slirps = childrenNamed('slirp4netns');
    expect(slirps.length).toBeGreaterThan(0);
    controller.abort();
    await running;
    for (const pid of slirps) expect(isAlive(pid)).toBe(false);
    expect(childrenNamed('slirp4netns')).toEqual([]);
  });

  describe('a private address on the host', () => {
    // The test's own private address on the host's loopback, standing in for a service on a private network.
    const privateAddress = '10.213.7.1';
    const service = createServer((socket) => socket.end('private service\n'));
    let port: number;
    beforeAll(async () => {
      execFileSync('ip', ['address', 'add', `${privateAddress}/32`, 'dev', 'lo']);
      port = await listen(service, privateAddress);
    });
    afterAll(() => {
      service.close();
      execFileSync('ip', ['address', 'del', `${privateAddress}/32`, 'dev', 'lo']);
    });

    it('is refused unless sandbox_allow_cidrs allows it', async () => {
      expect(await reachableFromHost(privateAddress, port)).toBe(true);
      const command = `cat < /dev/tcp/${privateAddress}/${port} 2>&1`;
      const refused = await makeExecutor({}).run({ workflowId: 'wf-private', command });
      expect(refused.output).toMatch(/No route to host|Network is unreachable/);
      const allowed = await makeExecutor({ allowCidrs: ['10.213.7.0/24'] }).run({ workflowId: 'wf-private', command });
      expect(allowed.output).toBe('private service\n');
    });
  });
});
