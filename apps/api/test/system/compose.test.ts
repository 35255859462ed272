import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { repoRoot } from '@svc/test-kit';

// docker-compose.yml checked statically (no Docker engine here): the services of a multi-replica
// deployment, wired as docs/scale-out.md describes, and every variable it uses documented.
const root = repoRoot();
const composeText = readFileSync(path.join(root, 'docker-compose.yml'), 'utf8');
const haproxyCfg = readFileSync(path.join(root, 'deploy/haproxy.cfg'), 'utf8');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');

type Service = {
  image?: string;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  stop_grace_period?: string;
  ports?: string[];
  volumes?: string[];
  secrets?: string[];
  configs?: { source: string; target: string }[];
  command?: string[];
};
const compose = parse(composeText, { merge: true }) as {
  services: Record<string, Service>;
  configs: Record<string, { content: string }>;
};
const services = compose.services;
const API_REPLICAS = ['api-1', 'api-2'];

/** `${NAME}`, `${NAME:-default}`, `${NAME:?message}` (not `$${…}`, which compose passes on literally). */
const INTERPOLATION = /(?<!\$)\$\{([A-Z][A-Z0-9_]*)(?:(:?[-?])([^}]*))?\}/g;
/** A compose value as compose would expand it with nothing set: defaults in, required ones a placeholder. */
const withDefaults = (text: string) =>
  text.replace(INTERPOLATION, (_all, name: string, op?: string, word?: string) =>
    op?.endsWith('-') ? (word ?? '') : `<${name}>`,
  );
/** Which documented table rows name a variable: README lines starting with `|` holding `NAME` in backticks. */
const documented = new Set(
  readme
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .flatMap((line) => [...line.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!)),
);

describe('docker-compose.yml', () => {
  it('runs PostgreSQL, MinIO with its bucket, two API replicas, a load balancer and a worker', () => {
    expect(Object.keys(services).sort()).toEqual(
      ['api-1', 'api-2', 'lb', 'minio', 'minio-bucket', 'postgres', 'worker'].sort(),
    );
    expect(services.postgres!.image).toMatch(/^postgres:/);
    expect(services.minio!.image).toMatch(/^minio\/minio:/);
    expect(services.lb!.image).toMatch(/^haproxy:/);
    expect(services['minio-bucket']!.depends_on).toEqual({ minio: { condition: 'service_healthy' } });
    expect(services['minio-bucket']!.environment!.S3_BUCKET).toBe('${S3_BUCKET:-svc}');
    for (const name of ['postgres', 'minio']) expect(services[name]!.healthcheck).toBeDefined();
  });

  it.each(API_REPLICAS)('%s uses PostgreSQL, S3 storage, the shared signing key and answers health checks', (name) => {
    const api = services[name]!;
    const env = api.environment!;
    expect(withDefaults(env.DATABASE_URL!)).toMatch(/^postgresql:\/\/svc:[^@]+@postgres:5432\/svc$/);
    expect(env.STORAGE_BACKEND).toBe('s3');
    expect(env.S3_ENDPOINT).toBe('http://minio:9000');
    expect(env.S3_FORCE_PATH_STYLE).toBe('true');
    expect(env.S3_BUCKET).toBe(services['minio-bucket']!.environment!.S3_BUCKET);
    // MinIO's root credentials are the API's S3 credentials.
    expect(env.S3_ACCESS_KEY_ID).toBe(services.minio!.environment!.MINIO_ROOT_USER);
    expect(env.S3_SECRET_ACCESS_KEY).toBe(services.minio!.environment!.MINIO_ROOT_PASSWORD);
    expect(env.JWT_PRIVATE_KEY).toBe('/run/secrets/jwt_private_key');
    expect(api.secrets).toEqual(['jwt_private_key']);
    expect(api.depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
      'minio-bucket': { condition: 'service_completed_successfully' },
    });
    expect(api.healthcheck!.test.join(' ')).toContain('/svc/api/health');
    // Docker waits past the drain (its delay and grace period) before it kills the replica.
    const seconds = (value: string) => Number(/:-(\d+)}$/.exec(value)![1]);
    expect(parseInt(api.stop_grace_period!, 10)).toBeGreaterThan(
      seconds(env.SHUTDOWN_DELAY_SECONDS!) + seconds(env.SHUTDOWN_GRACE_SECONDS!),
    );
    // Reached only through the balancer.
    expect(api.ports).toBeUndefined();
  });

  it('names each replica (REPLICA_ID) after its service', () => {
    for (const name of API_REPLICAS) expect(services[name]!.environment!.REPLICA_ID).toBe(name);
  });

  it('gives each replica its own scratch volume (shared state is in PostgreSQL and MinIO)', () => {
    const volumes = API_REPLICAS.map((name) => services[name]!.volumes);
    expect(volumes[0]).toHaveLength(1);
    expect(volumes[0]).not.toEqual(volumes[1]);
  });

  it('balances round-robin over both replicas with no sticky sessions', () => {
    const lb = services.lb!;
    expect(lb.volumes).toContain('./deploy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro');
    expect(lb.ports).toEqual(['${HTTP_PORT:-8080}:8080']);
    expect(lb.depends_on).toEqual(
      Object.fromEntries(API_REPLICAS.map((name) => [name, { condition: 'service_healthy' }])),
    );
    const lines = haproxyCfg
      .split('\n')
      .map((line) => line.replace(/#.*/, '').trim())
      .filter(Boolean);
    expect(lines).toContain('bind :8080');
    expect(lines).toContain('balance roundrobin');
    expect(lines).toContain('option httpchk GET /svc/api/ready');
    const servers = lines.filter((line) => line.startsWith('server '));
    expect(servers).toEqual(API_REPLICAS.map((name) => `server ${name} ${name}:8080`));
    // Stickiness would come from a cookie, a stick table, or hashing the source or a header.
    for (const line of lines)
      expect(line).not.toMatch(
        /^(cookie|stick|stick-table|hash-type)\b|^balance (source|hdr|uri|url_param)|prefer-last-server/,
      );
    expect(lines.find((line) => line.startsWith('timeout tunnel'))).toBeDefined();
  });

  it('has an haproxy config that haproxy itself accepts', () => {
    // Debian's haproxy (scripts/lib/bootstrap.sh ensure_haproxy); the replicas' names do not resolve
    // here, which the config tolerates (init-addr none) with a warning.
    const output = execFileSync('/usr/sbin/haproxy', ['-c', '-f', path.join(root, 'deploy/haproxy.cfg')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(output).toContain('Configuration file is valid');
  });

  it('points the worker at the load balancer, with its token and LLM key from the environment', () => {
    const worker = services.worker!;
    expect(worker.configs).toEqual([{ source: 'worker_config', target: '/config/worker.yaml' }]);
    expect(worker.command).toEqual(['node', 'apps/worker/dist/cli.js', '--config', '/config/worker.yaml']);
    const config = parse(withDefaults(compose.configs.worker_config!.content)) as {
      server_url: string;
      token_env: string;
      llm: { api_key_env: string };
    };
    expect(config.server_url).toBe('http://lb:8080');
    expect(Object.keys(worker.environment!)).toEqual(
      expect.arrayContaining([config.token_env, config.llm.api_key_env]),
    );
    expect(worker.depends_on).toEqual({ lb: { condition: 'service_started' } });
  });

  it('documents every variable it uses in a README table', () => {
    const interpolated = [...composeText.matchAll(INTERPOLATION)].map((m) => m[1]!);
    const apiSettings = API_REPLICAS.flatMap((name) => Object.keys(services[name]!.environment!));
    const missing = [...new Set([...interpolated, ...apiSettings])].filter((name) => !documented.has(name));
    expect(missing).toEqual([]);
  });

  it('asks for the secrets instead of defaulting them', () => {
    for (const name of ['POSTGRES_PASSWORD', 'S3_SECRET_ACCESS_KEY'])
      expect(composeText).not.toMatch(new RegExp(`\\$\\{${name}:-`));
  });
});
