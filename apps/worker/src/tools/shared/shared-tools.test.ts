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

  it('passes choices, a default and a timeout on to the loop', async () => {
    const { result } = await env.call(askUser, {
      question: 'Deploy now?',
      choices: ['yes', 'no'],
      default: 'no',
      timeout_seconds: 600,
    });
    expect(result.effect).toEqual({
      kind: 'ask_user',
      question: 'Deploy now?',
      choices: ['yes', 'no'],
      default: 'no',
      timeout_seconds: 600,
    });
  });

  it.each([
    [{ choices: ['yes'] }, 'choices: Too small: expected array to have >=2 items'],
    [{ choices: Array.from({ length: 11 }, (_, i) => `c${i}`) }, 'choices: Too big: expected array to have <=10 items'],
    [{ choices: ['yes', 'x'.repeat(101)] }, 'choices.1: Too big: expected string to have <=100 characters'],
    [{ choices: ['yes', 'yes'] }, 'choices: choices must be distinct'],
    [{ choices: ['yes', 'no'], default: 'maybe' }, 'default: default must be one of the choices'],
    [{ choices: ['yes', 'no'], timeout_seconds: 60 }, 'timeout_seconds: timeout_seconds needs a default'],
    [{ default: 'yes', timeout_seconds: 5 }, 'timeout_seconds: Too small: expected number to be >=10'],
    [{ default: 'yes', timeout_seconds: 604_801 }, 'timeout_seconds: Too big: expected number to be <=604800'],
  ])('answers an invalid option %j with a tool error the LLM can read', async (options, message) => {
    const { result } = await env.call(askUser, { question: 'Deploy now?', ...options });
    expect(result).toMatchObject({ isError: true, output: `invalid arguments for ask_user: ${message}` });
    expect(result.effect).toBeUndefined();
  });
});
