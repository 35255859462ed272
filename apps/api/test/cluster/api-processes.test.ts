import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { apiEntry, eventually, replicaAnswering, spawnProcess, startApiProcess, type ApiProcess } from '@svc/test-kit';

/** The processes whose parent is `pid` (Linux: field 4 of /proc/<pid>/stat). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = (() => {
      try {
        return readFileSync(`/proc/${entry}/stat`, 'utf8');
      } catch {
        return ''; // gone meanwhile
      }
    })();
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (parent === pid) children.push(Number(entry));
  }
  return children;
}

/** Replica ids seen over fresh connections until `count` distinct ones answered. */
const replicasSeen = (url: string, count: number, seen = new Set<string>()) =>
  eventually(
    async () => {
      seen.add(await replicaAnswering(url));
      return seen.size >= count && seen;
    },
    { what: `${count} distinct replicas to answer`, intervalMs: 1 },
  );

// API_PROCESSES=2: one host's cores through node:cluster, two server processes on one port.
describe('API_PROCESSES=2 on PostgreSQL', () => {
  let api: ApiProcess;

  beforeAll(async () => {
    api = await startApiProcess({ provider: 'postgresql', env: { API_PROCESSES: '2' } });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('serves from two processes and replaces one that is killed', async () => {
    const first = await replicasSeen(api.url, 2);
    const workers = await eventually(() => childrenOf(api.process.pid).length === 2 && childrenOf(api.process.pid));
    const [victim, survivor] = workers as [number, number];

    // The replacement announces itself with a replica id not seen before.
    const restarted = api.process.nextLine(
      (line) => line.includes('"msg":"svc listening"') && !first.has((JSON.parse(line) as { replica: string }).replica),
    );
    process.kill(victim, 'SIGKILL');
    await restarted;
    const now = childrenOf(api.process.pid);
    expect(now).toHaveLength(2);
    expect(now).toContain(survivor);
    expect(now).not.toContain(victim);
    // The replacement is a new replica: three distinct ids have answered by now, two of them live.
    const all = await replicasSeen(api.url, first.size + 1, new Set(first));
    expect(all.size).toBe(3);
  });

  it('stops every process on SIGTERM', async () => {
    const workers = childrenOf(api.process.pid);
    expect(await api.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow();
  });
});

describe('API_PROCESSES on SQLite', () => {
  it('is refused with a clear message', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-cluster-sqlite-'));
    try {
      const server = spawnProcess('api', process.execPath, [apiEntry()], {
        cwd: dataDir,
        env: { PATH: process.env.PATH, NODE_ENV: 'test', DATA_DIR: dataDir, PORT: '0', API_PROCESSES: '2' },
      });
      expect(await server.exited).toEqual({ code: 2, signal: null });
      expect(server.output).toContain('API_PROCESSES=2 (2 processes) needs PostgreSQL');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
