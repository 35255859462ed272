/**
 * Deterministic approximate tokenizer (not a real BPE): every CJK/kana/hangul character is one
 * token, every other run of letters/digits is one token per started 8 characters, and every
 * punctuation or symbol character is one token. Whitespace is free. Good enough that token counts
 * grow with the text, which is what tests of bounded context size need.
 */
const TOKEN_PATTERN =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]|[\p{L}\p{M}\p{N}_]+|[^\s\p{L}\p{M}\p{N}_]/gu;
const WIDE_CHAR = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]$/u;
const CHARS_PER_WORD_TOKEN = 8;

export function countTokens(text: string): number {
  let tokens = 0;
  for (const [piece] of text.matchAll(TOKEN_PATTERN)) {
    if (WIDE_CHAR.test(piece)) tokens += 1;
    else tokens += Math.ceil([...piece].length / CHARS_PER_WORD_TOKEN);
  }
  return tokens;
}

/** Message framing overheads, in the spirit of OpenAI's published counting recipe. */
const PER_MESSAGE = 4;
const PER_REPLY = 3;
const PER_TOOL_CALL = 1;

export interface TokenizedMessage {
  text: string;
  toolCalls: { name: string; arguments: string }[];
}

export function countPromptTokens(messages: TokenizedMessage[], toolsJson: string | null): number {
  let total = PER_REPLY;
  for (const message of messages) {
    total += PER_MESSAGE + countTokens(message.text);
    for (const call of message.toolCalls) total += PER_TOOL_CALL + countTokens(call.name) + countTokens(call.arguments);
  }
  if (toolsJson !== null) total += countTokens(toolsJson);
  return total;
}

export function countCompletionTokens(
  content: string | null,
  toolCalls: { name: string; arguments: string }[],
): number {
  let total = countTokens(content ?? '');
  for (const call of toolCalls) total += PER_TOOL_CALL + countTokens(call.name) + countTokens(call.arguments);
  return Math.max(total, 1);
}
