import { TextInputError } from './errors';

// TextDecoder is a global in every runtime this package supports (Node, browsers), but TypeScript
// declares it only in the DOM lib and @types/node, and this package builds against neither.
interface Utf8Decoder {
  decode(input: Uint8Array): string;
}
type Utf8DecoderConstructor = new (label: 'utf-8', options: { ignoreBOM: boolean }) => Utf8Decoder;

let decoder: Utf8Decoder | undefined;

/**
 * Decodes arbitrary bytes as UTF-8 into well-formed text with the platform's WHATWG decoder (the same
 * result as Node's `Buffer#toString('utf8')`): each maximal subpart of an invalid sequence becomes one
 * U+FFFD; overlong forms, UTF-8-encoded surrogates and code points past U+10FFFF are invalid. A BOM is
 * kept.
 */
export function decodeUtf8(bytes: Uint8Array): string {
  if (!(bytes instanceof Uint8Array)) {
    throw new TextInputError('invalid_bytes', 'bytes must be a Uint8Array');
  }
  // Not fatal, not streaming: every call decodes `bytes` alone, so one decoder serves all calls.
  decoder ??= new (globalThis as unknown as { TextDecoder: Utf8DecoderConstructor }).TextDecoder('utf-8', {
    ignoreBOM: true,
  });
  return decoder.decode(bytes);
}
