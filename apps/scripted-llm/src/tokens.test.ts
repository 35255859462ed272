import { countCompletionTokens, countPromptTokens, countTokens } from './tokens';

describe('countTokens', () => {
  it('counts words, punctuation and wide characters, ignoring whitespace', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('   \n\t')).toBe(0);
    expect(countTokens('Hello, world!')).toBe(4);
    expect(countTokens('implementation')).toBe(2);
    expect(countTokens('你好世界')).toBe(4);
    expect(countTokens('café au lait')).toBe(3);
  });

  it('is additive over whitespace-separated text, so it grows with the prompt', () => {
    const sentence = 'Write index.html and serve it. ';
    expect(countTokens(sentence.repeat(10))).toBe(10 * countTokens(sentence));
  });
});

describe('prompt and completion counts', () => {
  it('charges per message, per tool call and for the tools list', () => {
    const one = countPromptTokens([{ text: 'hi', toolCalls: [] }], null);
    const two = countPromptTokens(
      [
        { text: 'hi', toolCalls: [] },
        { text: 'hi', toolCalls: [] },
      ],
      null,
    );
    expect(two - one).toBe(one - countPromptTokens([], null));
    const withCall = countPromptTokens(
      [{ text: 'hi', toolCalls: [{ name: 'save_memo', arguments: '{"note":"x"}' }] }],
      null,
    );
    expect(withCall).toBeGreaterThan(one);
    expect(countPromptTokens([{ text: 'hi', toolCalls: [] }], '[{"type":"function"}]')).toBeGreaterThan(one);
  });

  it('never reports zero completion tokens', () => {
    expect(countCompletionTokens(null, [])).toBe(1);
    expect(countCompletionTokens('two words', [])).toBe(2);
    expect(countCompletionTokens(null, [{ name: 'advance_step', arguments: '{}' }])).toBeGreaterThan(1);
  });
});
