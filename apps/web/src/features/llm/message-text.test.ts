import { messageText, prettyArguments } from './message-text';

describe('LLM message display', () => {
  it('shows string content, joined text parts and other parts as JSON', () => {
    expect(messageText('hello')).toBe('hello');
    expect(messageText(null)).toBe('');
    expect(messageText(undefined)).toBe('');
    expect(
      messageText([
        { type: 'text', text: 'a' },
        { type: 'image_url', image_url: { url: 'x' } },
        { type: 'text', text: 'b' },
      ]),
    ).toBe('a\n{"type":"image_url","image_url":{"url":"x"}}\nb');
  });

  it('pretty-prints JSON arguments and keeps anything else as sent', () => {
    expect(prettyArguments('{"command":"npm test"}')).toBe('{\n  "command": "npm test"\n}');
    expect(prettyArguments('{not json')).toBe('{not json');
    expect(prettyArguments(undefined)).toBe('');
  });
});
