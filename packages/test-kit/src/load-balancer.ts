import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './api-process';
import { INHERITED_PATH } from './env';
import { eventually, StopWaiting } from './poll';
import { spawnProcess, type ManagedProcess } from './process';
import { startReplicas, type Replicas } from './replicas';

export interface LoadBalancerOptions {
  /** Base URLs of the API replicas (`http://127.0.0.1:port`), balanced round-robin. */
  backends: string[];
  /**
   * The loopback port to listen on (a free one by default). Choose it before starting the replicas to
   * give them `PUBLIC_URL=http://127.0.0.1:<port>`, the origin browsers use.
   */
  port?: number;
  /** How often haproxy probes each replica's readiness (/svc/api/ready). */
  checkIntervalMs?: number;
  /** The haproxy binary; Debian's by default (scripts/lib/bootstrap.sh `ensure_haproxy`). */
  haproxy?: string;
}

export interface LoadBalancer {
  url: string;
  port: number;
  /** The haproxy process (its output holds the "Server api/rN is DOWN/UP" lines). */
  readonly process: ManagedProcess;
  /** The name haproxy gives the replica at `backends[index]` in its log lines (`rN`). */
  serverName(index: number): string;
  /** Resolves when haproxy logs that the replica at `backends[index]` went DOWN (or UP) from now on. */
  nextStateChange(index: number, state: 'UP' | 'DOWN'): Promise<string>;
  stop(): Promise<void>;
}

const HAPROXY = '/usr/sbin/haproxy';

/**
 * The haproxy configuration of the tests: plain round-robin per request (no cookie, no stickiness, no
 * preference for the last server), WebSocket upgrades tunnelled with long time-outs, and a check of
 * readiness (/svc/api/ready) so a dead or draining replica is skipped. A request whose connection fails is retried on
 * another replica (`redispatch`) before the checks have noticed.
 */
export function haproxyConfig(port: number, backends: string[], checkIntervalMs = 500): string {
  const servers = backends.map((url, i) => {
    const { hostname, port: backendPort } = new URL(url);
    return `  server r${i} ${hostname}:${backendPort} check`;
  });
  return [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  option redispatch',
    '  retries 2',
    '  retry-on conn-failure empty-response',
    '  timeout connect 2s',
    '  timeout client 1h',
    '  timeout server 1h',
    '  timeout tunnel 1h',
    '  timeout http-request 30s',
    // A busy replica on a loaded machine answers its check slowly, but answers: it stays in.
    '  timeout check 5s',
    'frontend svc',
    `  bind 127.0.0.1:${port}`,
    '  option forwardfor',
    '  default_backend api',
    'backend api',
    '  balance roundrobin',
    '  option httpchk GET /svc/api/ready',
    '  http-check expect status 200',
    `  default-server inter ${checkIntervalMs}ms fall 2 rise 1`,
    ...servers,
    '',
  ].join('\n');
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** A real haproxy process in front of the given replicas, on a free loopback port; resolves once it accepts. */
export async function startLoadBalancer(options: LoadBalancerOptions): Promise<LoadBalancer> {
  const binary = options.haproxy ?? HAPROXY;
  if (!existsSync(binary))
    throw new Error(`${binary} is missing: install Debian's haproxy (scripts/lib/bootstrap.sh ensure_haproxy)`);
  if (options.backends.length === 0) throw new Error('a load balancer needs at least one backend');
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-haproxy-'));
  const port = options.port ?? (await freePort());
  const config = path.join(dir, 'haproxy.cfg');
  writeFileSync(config, haproxyConfig(port, options.backends, options.checkIntervalMs));
  // -db: foreground, no daemon, so the process is ours to stop.
  const child = spawnProcess('haproxy', binary, ['-db', '-f', config], { cwd: dir, env: { PATH: INHERITED_PATH } });
  const stop = async () => {
    await child.stop('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await eventually(
      async () => {
        if (child.exit) throw new StopWaiting(`haproxy exited (${JSON.stringify(child.exit)})\n${child.tail()}`);
        return accepts(port);
      },
      { what: 'haproxy to accept connections', detail: () => child.tail() },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const serverName = (index: number) => `r${index}`;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    process: child,
    serverName,
    nextStateChange: (index, state) =>
      child.nextLine((line) => line.includes(`Server api/${serverName(index)} is ${state}`)),
    stop,
  };
}

/**
 * Which replica answers `GET /svc/api/health` at `baseUrl` (its `replica` id), asked on a new
 * connection each time, so a load balancer or node:cluster chooses again for every call.
 */
export function replicaAnswering(baseUrl: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = get(`${baseUrl}/svc/api/health`, { agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`health: HTTP ${res.statusCode} ${body}`));
        resolve((JSON.parse(body) as { replica: string }).replica);
      });
    });
    req.once('error', reject);
  });
}

export interface BalancedReplicas {
  /** The balancer's URL: the replicas' PUBLIC_URL, what browsers and workers use. */
  url: string;
  balancer: LoadBalancer;
  replicas: Replicas;
  /** Stops the balancer, then the replicas (dropping their database). */
  close(): Promise<void>;
}

/**
 * `count` replicas on one PostgreSQL database (test-kit `startReplicas`) behind a real haproxy, whose
 * address is their public URL (cookies, Origin checks), as in a deployment.
 */
export async function startBalancedReplicas(
  count: number,
  options: { env?: Record<string, string>; checkIntervalMs?: number } = {},
): Promise<BalancedReplicas> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const replicas = await startReplicas(count, { provider: 'postgresql', env: { PUBLIC_URL: url, ...options.env } });
  let balancer: LoadBalancer;
  try {
    balancer = await startLoadBalancer({
      port,
      backends: replicas.replicas.map((r) => r.url),
      checkIntervalMs: options.checkIntervalMs,
    });
  } catch (error) {
    await replicas.close();
    throw error;
  }
  return {
    url,
    balancer,
    replicas,
    async close() {
      await balancer.stop();
      await replicas.close();
    },
  };
}
