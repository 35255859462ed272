import { parseConfigText } from '../config';
import { configProblems } from '../../test/support/config-problems';

const ctx = { env: {}, hostname: 'box-1', baseDir: '/etc/svc' };

const withLlm = (lines: string) => `
server_url: http://localhost:3000/
token: abc
llm:
  base_url: http://localhost:4000/v1
  api_key: sk-test
  model: o4-mini
${lines
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => `  ${l.trim()}`)
  .join('\n')}
`;

const problemsOf = (text: string): string[] => configProblems(text, ctx);

describe('llm config for real endpoints', () => {
  it('leaves temperature and token limits unset by default, bounds retry-after at 120 s, continues twice', () => {
    expect(parseConfigText(withLlm(''), ctx).llm).toMatchObject({
      temperature: undefined,
      maxCompletionTokens: undefined,
      maxTokens: undefined,
      maxRetryAfterSeconds: 120,
      maxContinuations: 2,
    });
  });

  it('reads max_completion_tokens, max_retry_after_seconds and max_continuations', () => {
    const llm = parseConfigText(
      withLlm('max_completion_tokens: 8000\nmax_retry_after_seconds: 300\nmax_continuations: 0'),
      ctx,
    ).llm;
    expect(llm).toMatchObject({ maxCompletionTokens: 8000, maxRetryAfterSeconds: 300, maxContinuations: 0 });
  });

  it('refuses both token limit names at once', () => {
    expect(problemsOf(withLlm('max_completion_tokens: 100\nmax_tokens: 100'))).toEqual([
      'llm.max_tokens: give either llm.max_completion_tokens or llm.max_tokens, not both',
    ]);
  });

  it('refuses a negative retry-after bound', () => {
    expect(problemsOf(withLlm('max_retry_after_seconds: -1'))).toEqual([
      expect.stringMatching(/^llm\.max_retry_after_seconds: /),
    ]);
  });
});
