import { startToolEnv, type ToolEnv } from '../../../test/support/tool-env';
import { askUser } from './ask-user';
import { kbRead } from './kb-read';
import { kbSearch } from './kb-search';
import { listWorkers } from './list-workers';

let env: ToolEnv;
beforeAll(async () => {
  env = await startToolEnv();
});
afterAll(() => env.close());

describe('kb_search', () => {
  it('asks the server for the top 5 sections and labels each with its article', async () => {
    env.harness.rest.kbResults = [
      { article_id: 'a', article_title: 'Deploy', text: '## Ports\nUse 8080.', score: 0.9 },
      { article_id: 'b', article_title: 'Style', text: 'Tabs.', score: 0.5 },
    ];
    const { result } = await env.call(kbSearch, { query: 'which port' });
    expect(result).toEqual({ output: '1. [Deploy]\n## Ports\nUse 8080.\n\n2. [Style]\nTabs.', isError: false });
    expect(env.harness.rest.requests).toContain('GET /svc/api/kb/search?q=which%20port&k=5');
  });

  it('says so when nothing matches and rejects an empty query', async () => {
    env.harness.rest.kbResults = [];
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
    env.harness.rest.kbText = '# A\n\nalpha\n\n# B\n\nbeta';
    expect((await env.call(kbRead, {})).result).toEqual({ output: '# A\n\nalpha\n\n# B\n\nbeta', isError: false });
    env.harness.rest.kbText = '';
    expect((await env.call(kbRead, {})).result.output).toBe('The knowledge base is empty.');
  });
});

describe('list_workers', () => {
  it('lists workers with status, labels and load, marking this one', async () => {
    env.harness.rest.workers = [
      {
        id: 'w-1',
        name: 'test-worker',
        labels: [],
        capacity: 2,
        active: 1,
        status: 'online',
        last_seen_at: null,
        version: '0.1.0',
      },
      {
        id: 'w-2',
        name: 'gpu-box',
        labels: ['gpu', 'linux'],
        capacity: 4,
        active: 0,
        status: 'offline',
        last_seen_at: null,
        version: '0.1.0',
      },
    ];
    expect((await env.call(listWorkers, {})).result.output).toBe(
      '- test-worker (this worker): online, labels: none, running 1/2, version 0.1.0\n- gpu-box: offline, labels: gpu, linux, running 0/4, version 0.1.0',
    );
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
