import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Schedule } from '@svc/protocol';
import { eventually, Session, startApiProcess, type ApiProcess } from '@svc/test-kit';
import { assertCliBuilt, runCli, type CliResult } from '../support/cli-process';
import { E2E_TIMEOUT_MS } from '../support/stack';

/** `svc schedules …` as a process against a real API server (SQLite): create, show the tick's run, pause, rm. */
describe('svc schedules against a real server', () => {
  let api: ApiProcess;
  let dir: string;
  let token: string;
  let otherToken: string;
  let projectId: string;

  beforeAll(async () => {
    assertCliBuilt();
    api = await startApiProcess({ env: { LOG_LEVEL: 'warn' } });
    dir = mkdtempSync(path.join(tmpdir(), 'svc-schedules-cli-'));
    const alice = await Session.signIn(api.url, 'alice');
    token = (await alice.json<{ token: string }>('/token', { json: {} })).token;
    projectId = (await alice.json<{ id: string }>('/projects', { json: { name: 'cron' } })).id;
    const bob = await Session.signIn(api.url, 'bob');
    otherToken = (await bob.json<{ token: string }>('/token', { json: {} })).token;
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    await api?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const svc = (args: string[], as = token): Promise<CliResult> =>
    runCli(args, { cwd: dir, env: { SVC_URL: api.url, SVC_TOKEN: as, SVC_CONFIG: path.join(dir, 'none.json') } });
  const ok = async (args: string[]): Promise<string> => {
    const result = await svc(args);
    if (result.code !== 0) throw new Error(`svc ${args.join(' ')}: exit ${result.code}\n${result.stderr}`);
    return result.stdout;
  };

  it(
    'creates a schedule whose tick starts a run, shows it, pauses, lists and removes it',
    async () => {
      const created = JSON.parse(
        await ok([
          'schedules',
          'create',
          'heartbeat',
          'Check the site answers',
          '--cron',
          '*/2 * * * * *',
          '--tz',
          'Europe/Berlin',
          '--overlap',
          'allow',
          '--catch-up',
          'latest',
          '-p',
          projectId,
          '--json',
        ]),
      ) as Schedule;
      expect(created).toMatchObject({
        name: 'heartbeat',
        timezone: 'Europe/Berlin',
        overlap: 'allow',
        catch_up: 'latest',
      });
      expect(created.next_runs).toHaveLength(5);

      const shown = await eventually(
        async () => {
          const schedule = JSON.parse(await ok(['schedules', 'show', created.id, '--json'])) as Schedule;
          return schedule.recent_ticks.some((t) => t.outcome === 'created') && schedule;
        },
        { what: 'a tick with a run', intervalMs: 500 },
      );
      const runId = shown.recent_ticks.find((t) => t.outcome === 'created')!.workflow_id!;
      expect(await ok(['status', runId])).toContain('Check the site answers');
      expect(await ok(['schedules', 'show', created.id])).toMatch(new RegExp(`tick \\S+: created ${runId}`));

      expect(await ok(['schedules', 'pause', created.id])).toMatch(/heartbeat .* paused$/m);
      expect(await ok(['schedules', 'ls', '-p', projectId])).toMatch(
        /heartbeat\s+\*\/2 \* \* \* \* \* \(Europe\/Berlin\)/,
      );
      expect(await ok(['schedules', 'resume', created.id])).toMatch(/heartbeat .* next \d{4}-/m);

      // Someone who is not a member: not found, nothing changed.
      const refused = await svc(['schedules', 'rm', created.id], otherToken);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(/schedule not found/);
      await ok(['schedules', 'rm', created.id]);
      expect(JSON.parse(await ok(['schedules', 'ls', '-p', projectId, '--json']))).toEqual([]);
    },
    E2E_TIMEOUT_MS,
  );

  it('refuses a bad cron with a message naming it, and a missing --cron as a usage error', async () => {
    const bad = await svc(['schedules', 'create', 'bad', 'x', '--cron', '61 * * * *', '-p', projectId]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/body\.cron/);
    const usage = await svc(['schedules', 'create', 'bad', 'x', '-p', projectId]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--cron/);
  });
});
