import type { KbSearchResult, Worker } from '@svc/protocol';
import { eventually, TestWorker } from '@svc/test-kit';
import { SERVER_SETUP_MS, startToolEnv, type ToolEnv } from '../../../test/support/tool-env';
import { askUser } from './ask-user';
import { kbRead } from './kb-read';
import { kbSearch } from './kb-search';
import { listWorkers } from './list-workers';

let env: ToolEnv;
beforeAll(async () => {
  env = await startToolEnv();
}, SERVER_SETUP_MS);
afterAll(() => env?.close());

const KB = [
  '# Deploy\n\n## Ports\nUse port 8080 for the web server.\n\n## Hosts\nDeploy to the staging host first.',
  '# Style\n\n## Indentation\nUse tabs.\n\n## Naming\nCamel case for variables.',
  '# Testing\n\n## Units\nEvery module has a unit test.\n\n## Speed\nTests wait for events.',
].join('\n\n');

describe('kb_search', () => {
  it('asks the server for the top 5 sections and labels each with its article', async () => {
    await env.setKb(KB);
    const { result } = await env.call(kbSearch, { query: 'which port does the web server use' });
    // The same five sections, in the same order, as the server's own search answers.
    const top = await env.server.alice.json<KbSearchResult[]>(
      `/kb/search?q=${encodeURIComponent('which port does the web server use')}&k=5`,
    );
    expect(top).toHaveLength(5);
    expect(result).toEqual({
      output: top.map((r, i) => `${i + 1}. [${r.article_title}]\n${r.text}`).join('\n\n'),
      isError: false,
    });
    expect(result.output).toMatch(/^1\. \[Deploy\]\n## Ports\nUse port 8080 for the web server\./);
  });

  it('says so when nothing matches and rejects an empty query', async () => {
    await env.setKb('');
    expect((await env.call(kbSearch, { query: 'nothing' })).result.output).toBe(
      'No knowledge-base sections match "nothing".',
    );
    expect((await env.call(kbSearch, { query: '  ' })).result).toMatchObject({
      isError: true,
      output: expect.stringContaining('invalid arguments for kb_search: query'),
    });
  });
});

describe('kb_read', () => {
  it('returns the whole knowledge base text', async () => {
    await env.setKb('# A\n\nalpha\n\n# B\n\nbeta');
    expect((await env.call(kbRead, {})).result).toEqual({ output: '# A\n\nalpha\n\n# B\n\nbeta', isError: false });
    await env.setKb('');
    expect((await env.call(kbRead, {})).result.output).toBe('The knowledge base is empty.');
  });
});

describe('list_workers', () => {
  it('lists workers with status, labels and load, marking this one', async () => {
    // Another worker registered once and went away.
    const gpu = await TestWorker.connect(env.server.api, env.server.token);
    gpu.send({
      type: 'register',
      protocol_version: 1,
      name: 'gpu-box',
      labels: ['gpu', 'linux'],
      capacity: 4,
      version: '0.1.0',
      hostname: 'gpu-host',
    });
    await gpu.inbox.next((m) => m.type === 'registered');
    gpu.close();
    await eventually(async () => {
      const workers = await env.server.alice.json<Worker[]>('/workers');
      return workers.find((w) => w.name === 'gpu-box')?.status === 'offline';
    });

    const lines = (await env.call(listWorkers, {})).result.output.split('\n');
    expect(lines.sort()).toEqual([
      '- gpu-box: offline, labels: gpu, linux, running 0/4, version 0.1.0',
      `- ${env.harness.name} (this worker): online, labels: none, running 1/2, version 0.1.0`,
    ]);
  });
});

describe('ask_user', () => {
  it('asks the loop to put the question to the user', async () => {
    const { result } = await env.call(askUser, { question: 'Which database?' });
    expect(result.effect).toEqual({ kind: 'ask_user', question: 'Which database?' });
  });

  it('rejects a missing question', async () => {
    expect((await env.call(askUser, {})).result.output).toBe(
      'invalid arguments for ask_user: question: Invalid input: expected string, received undefined',
    );
  });
});
