import { parseScript, parseScriptText, ScriptError } from './load-script';

function issuesOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ScriptError) return error.issues;
    throw error;
  }
  throw new Error('expected a ScriptError');
}

describe('script parsing', () => {
  it('applies defaults and turns single strings into lists', () => {
    const script = parseScriptText(
      'rules:\n  - match: { system_contains: "svc:title" }\n    responses: [{ content: Title }]\n',
    );
    expect(script.models).toEqual(['scripted']);
    expect(script.rules[0]).toMatchObject({
      select: 'sequence',
      repeat_last: false,
      match: { system_contains: ['svc:title'] },
    });
    expect(parseScript(undefined)).toEqual({ models: ['scripted'], rules: [] });
  });

  it('accepts JSON text and parses a parsed script again unchanged', () => {
    const script = parseScriptText(
      JSON.stringify({ rules: [{ responses: [{ tool_calls: [{ name: 'advance_step' }] }] }] }),
    );
    expect(script.rules[0]!.responses[0]!.tool_calls).toEqual([{ name: 'advance_step', arguments: {} }]);
    expect(parseScript(script)).toEqual(script);
  });

  it('lists every problem with its path', () => {
    const issues = issuesOf(() =>
      parseScript({
        rules: [
          { responses: [] },
          { responses: [{ content: 'x', error: { status: 500, message: 'y' } }] },
          { select: 'by_turn', responses: [{ content: 'x', times: 2 }] },
          { match: { system_prompt: 'typo' }, responses: [{ error: { status: 200, message: 'ok' } }] },
        ],
      }),
    );
    expect(issues).toEqual([
      expect.stringMatching(/^rules\.0\.responses: /),
      expect.stringMatching(/^rules\.1\.responses\.0: a response with `error` cannot/),
      expect.stringMatching(/^rules\.2: `times` needs `select: sequence`/),
      expect.stringMatching(/^rules\.3\.match: .*system_prompt/),
      expect.stringMatching(/^rules\.3\.responses\.0\.error\.status: /),
    ]);
  });

  it('reports YAML syntax errors as a ScriptError', () => {
    expect(() => parseScriptText('rules: [', 'demo.yaml')).toThrow(/demo.yaml is not valid YAML or JSON/);
  });
});
