import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { plan, scriptedAgent } from '@svc/scripted-llm';
import { E2E_TIMEOUT_MS, startStack, type CliStack } from '../support/stack';

const FIRST_VALUE = 'tok-cli-first-3e9a';
const SECOND_VALUE = 'tok-cli-second-81c2';

// Issue 24: `svc secret` (values only from stdin or a file, never printed) and `svc mcp` against the real server.
describe('svc secret and svc mcp with a real server', () => {
  let stack: CliStack;
  beforeAll(async () => {
    stack = await startStack(scriptedAgent({ title: 'Unused', planning: [plan('Nothing')], steps: {} }));
  }, E2E_TIMEOUT_MS);
  afterAll(async () => stack?.close());

  const svc = (args: string[], expected = 0, input?: string) =>
    stack.svcExiting(args, expected, input === undefined ? {} : { input });
  const json = async <T>(args: string[]) => JSON.parse((await svc(['--json', ...args])).stdout) as T;

  it(
    "sets a project secret from stdin and from a file, lists names only, shows its events, deletes it; instance secrets are administrators'",
    async () => {
      expect((await svc(['secret', 'set', 'DEPLOY_TOKEN', '-p', 'ci'], 0, `${FIRST_VALUE}\n`)).stdout).toBe(
        'saved secret DEPLOY_TOKEN\n',
      );
      const file = path.join(stack.dir, 'token.txt');
      writeFileSync(file, `${SECOND_VALUE}\n`);
      await svc(['secret', 'set', 'DEPLOY_TOKEN', '-p', 'ci', '--from-file', file], 0, '');
      // a value on the command line is refused before anything is sent, as is a bad name
      await svc(['secret', 'set', 'OTHER', SECOND_VALUE, '-p', 'ci'], 2, '');
      await svc(['secret', 'set', 'OTHER=x', '-p', 'ci'], 2, '');

      const listed = await svc(['--json', 'secret', 'list', '-p', 'ci']);
      expect(JSON.parse(listed.stdout)).toEqual([
        expect.objectContaining({ name: 'DEPLOY_TOKEN', updated_by: expect.objectContaining({ name: 'alice' }) }),
      ]);
      const events = await json<{ items: { kind: string; name: string }[] }>(['secret', 'events', '-p', 'ci']);
      expect(events.items.map((e) => `${e.kind} ${e.name}`)).toEqual(['updated DEPLOY_TOKEN', 'created DEPLOY_TOKEN']);
      const human = await svc(['secret', 'ls', '-p', 'ci']);
      expect(human.stdout).toMatch(/^DEPLOY_TOKEN {2}\S+ {2}alice\n$/);
      for (const out of [listed.stdout, human.stdout, JSON.stringify(events)]) {
        expect(out).not.toContain(FIRST_VALUE);
        expect(out).not.toContain(SECOND_VALUE);
      }

      expect((await svc(['secret', 'delete', 'DEPLOY_TOKEN', '-p', 'ci'])).stdout).toBe(
        'deleted secret DEPLOY_TOKEN\n',
      );
      expect(await json(['secret', 'list', '-p', 'ci'])).toEqual([]);
      await svc(['secret', 'rm', 'DEPLOY_TOKEN', '-p', 'ci'], 1);

      const root = (await svc(['token', 'create', '--dev-user', 'root'])).stdout.trim();
      await svc(
        ['--token', root, 'secret', 'set', 'ORG_TOKEN', '--instance', '--visibility', 'templates'],
        0,
        'org-1234',
      );
      expect(await json(['--token', root, 'secret', 'list', '--instance'])).toEqual([
        expect.objectContaining({ name: 'ORG_TOKEN', visibility: 'templates' }),
      ]);
      await svc(['secret', 'list', '--instance'], 1); // alice is not an administrator
      await svc(['--token', root, 'secret', 'delete', 'ORG_TOKEN', '--instance']);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'adds an http and a command MCP server, lists them and removes one',
    async () => {
      await svc([
        ...['mcp', 'add', 'tracker', '-p', 'ci', '--http', 'https://mcp.example.com/mcp'],
        ...['--header', 'Authorization: Bearer ${{ secrets.DEPLOY_TOKEN }}', '--allow-writes'],
      ]);
      await svc([
        ...['mcp', 'add', 'everything', '-p', 'ci', '--env', 'LOG=${{ secrets.LOG_KEY }}', '--disabled'],
        ...['--', 'npx', '-y', '@modelcontextprotocol/server-everything'],
      ]);
      await svc(['mcp', 'add', 'neither', '-p', 'ci'], 2);
      expect(await json(['mcp', 'list', '-p', 'ci'])).toEqual([
        expect.objectContaining({
          name: 'everything',
          transport: 'stdio',
          command: ['npx', '-y', '@modelcontextprotocol/server-everything'],
          env: { LOG: '${{ secrets.LOG_KEY }}' },
          allow_writes: false,
          enabled: false,
        }),
        expect.objectContaining({
          name: 'tracker',
          transport: 'http',
          url: 'https://mcp.example.com/mcp',
          headers: { Authorization: 'Bearer ${{ secrets.DEPLOY_TOKEN }}' },
          allow_writes: true,
          enabled: true,
        }),
      ]);
      expect((await svc(['mcp', 'remove', 'everything', '-p', 'ci'])).stdout).toBe('removed MCP server everything\n');
      expect((await svc(['mcp', 'ls', '-p', 'ci'])).stdout).toBe(
        'tracker  http   https://mcp.example.com/mcp  (enabled, writes allowed)\n',
      );
    },
    E2E_TIMEOUT_MS,
  );
});
