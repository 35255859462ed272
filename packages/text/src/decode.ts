import { TextInputError } from './errors';

const REPLACEMENT = 0xfffd;
// String.fromCharCode takes its arguments on the stack: flush in chunks well under engine limits.
const FLUSH_AT = 8192;

/**
 * Decodes arbitrary bytes as UTF-8 into well-formed text, like the WHATWG decoder (and Node's
 * `Buffer#toString('utf8')`): each maximal subpart of an invalid sequence becomes one U+FFFD;
 * overlong forms, UTF-8-encoded surrogates and code points past U+10FFFF are invalid. A BOM is kept.
 */
export function decodeUtf8(bytes: Uint8Array): string {
  if (!(bytes instanceof Uint8Array)) {
    throw new TextInputError('invalid_bytes', 'bytes must be a Uint8Array');
  }
  const parts: string[] = [];
  let units: number[] = [];
  const emit = (codePoint: number): void => {
    if (codePoint > 0xffff) {
      const offset = codePoint - 0x10000;
      units.push(0xd800 + (offset >> 10), 0xdc00 + (offset & 0x3ff));
    } else units.push(codePoint);
    if (units.length >= FLUSH_AT) {
      parts.push(String.fromCharCode(...units));
      units = [];
    }
  };

  let codePoint = 0;
  let needed = 0;
  let seen = 0;
  let lower = 0x80;
  let upper = 0xbf;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    if (needed === 0) {
      if (byte <= 0x7f) emit(byte);
      else if (byte >= 0xc2 && byte <= 0xdf) {
        needed = 1;
        codePoint = byte & 0x1f;
      } else if (byte >= 0xe0 && byte <= 0xef) {
        if (byte === 0xe0) lower = 0xa0; // shorter forms are overlong
        if (byte === 0xed) upper = 0x9f; // U+D800..U+DFFF are not scalar values
        needed = 2;
        codePoint = byte & 0x0f;
      } else if (byte >= 0xf0 && byte <= 0xf4) {
        if (byte === 0xf0) lower = 0x90; // overlong
        if (byte === 0xf4) upper = 0x8f; // past U+10FFFF
        needed = 3;
        codePoint = byte & 0x07;
      } else emit(REPLACEMENT);
      continue;
    }
    if (byte < lower || byte > upper) {
      // The sequence so far is one maximal subpart; this byte starts afresh.
      codePoint = needed = seen = 0;
      lower = 0x80;
      upper = 0xbf;
      emit(REPLACEMENT);
      i--;
      continue;
    }
    lower = 0x80;
    upper = 0xbf;
    codePoint = (codePoint << 6) | (byte & 0x3f);
    seen++;
    if (seen === needed) {
      emit(codePoint);
      codePoint = needed = seen = 0;
    }
  }
  if (needed !== 0) emit(REPLACEMENT);
  parts.push(String.fromCharCode(...units));
  return parts.join('');
}
