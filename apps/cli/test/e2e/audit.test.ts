import { plan, scriptedAgent } from '@svc/scripted-llm';
import type { AuditEvent } from '@svc/protocol';
import { E2E_TIMEOUT_MS, startStack, type CliStack } from '../support/stack';

// Issue 26: `svc audit` reads the audit log against the real server: a project's (owners), the instance's
// (administrators), filtered, and exported as JSON lines.
describe('svc audit with a real server', () => {
  let stack: CliStack;
  beforeAll(async () => {
    stack = await startStack(scriptedAgent({ title: 'Unused', planning: [plan('Nothing')], steps: {} }));
  }, E2E_TIMEOUT_MS);
  afterAll(async () => stack?.close());

  const svc = (args: string[], expected = 0, input?: string) =>
    stack.svcExiting(args, expected, input === undefined ? {} : { input });

  it(
    "shows an owner their project's rows, an administrator everything, and exports JSON lines",
    async () => {
      await svc(['secret', 'set', 'AUDITED', '-p', 'ci'], 0, 'audited-value-9c1\n');

      const page = JSON.parse((await svc(['--json', 'audit', '-p', 'ci', '--action', 'secret.'])).stdout) as {
        items: AuditEvent[];
      };
      expect(page.items.map((e) => `${e.action} ${e.target.id} ${e.actor.login}`)).toEqual([
        'secret.created AUDITED alice',
      ]);
      const human = (await svc(['audit', '-p', 'ci', '--since', '1h'])).stdout;
      expect(human).toMatch(/ secret\.created +alice {2}secret:AUDITED {2}project \S+ {2}\S+\n/);
      expect(human).toMatch(/ project\.created +alice /);
      expect(human).not.toContain('audited-value-9c1');

      // alice is no administrator: the whole log is refused; a bad time is a usage error, sent nowhere
      expect((await svc(['audit'], 1)).stderr).toMatch(/forbidden|not allowed/);
      await svc(['audit', '-p', 'ci', '--since', 'yesterday'], 2);

      const root = (await svc(['token', 'create', '--dev-user', 'root'])).stdout.trim();
      const exported = (await svc(['--token', root, 'audit', '--jsonl', '--since', '1h'])).stdout;
      const lines = exported
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as AuditEvent);
      const actions = lines.map((e) => `${e.action} ${e.actor.login ?? e.actor.kind}`);
      expect(actions).toEqual(
        expect.arrayContaining([
          'auth.sign_in alice',
          'token.minted alice',
          'project.created alice',
          'secret.created alice',
          'auth.sign_in root',
          'token.minted root',
        ]),
      );
      // newest first
      const times = lines.map((e) => e.at);
      expect([...times].sort().reverse()).toEqual(times);
      const tokens = (await svc(['--token', root, '--json', 'audit', '--action', 'token.', '--actor', 'root'])).stdout;
      const minted = (JSON.parse(tokens) as { items: AuditEvent[] }).items;
      expect(minted.length).toBeGreaterThan(0);
      expect(minted.every((e) => e.action === 'token.minted' && e.actor.login === 'root')).toBe(true);
    },
    E2E_TIMEOUT_MS,
  );
});
