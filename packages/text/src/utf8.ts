const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATES = /\p{Cs}/gu;

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/**
 * Bytes `text` takes as UTF-8. A lone surrogate counts as 3 bytes: the U+FFFD an encoder writes for it.
 */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (isHighSurrogate(unit) && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** Unicode code points in `text` (a surrogate pair is one; a lone surrogate is one too). */
export function codePointLength(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    if (isHighSurrogate(text.charCodeAt(i)) && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) i++;
    count++;
  }
  return count;
}

/** `text` with every lone surrogate replaced by U+FFFD, so it is well-formed UTF-16 (and encodable as UTF-8). */
export function replaceLoneSurrogates(text: string): string {
  return LONE_SURROGATE.test(text) ? text.replace(LONE_SURROGATES, '\uFFFD') : text;
}

const isContinuation = (byte: number): boolean => (byte & 0xc0) === 0x80;

/** Bytes of the UTF-8 sequence a lead byte starts (1 for ASCII and for bytes that cannot lead one). */
function sequenceLength(lead: number): number {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 1;
}

/**
 * Where a byte prefix of UTF-8 text may end without cutting a character: `end` when the character
 * before it is complete, else the start of that character. Bytes that are not UTF-8 are left as they are.
 */
export function utf8PrefixEnd(bytes: Uint8Array, end = bytes.length): number {
  const limit = Math.min(end, bytes.length);
  const lead = lastLeadIndex(bytes, limit);
  return lead >= 0 && lead + sequenceLength(bytes[lead] as number) > limit ? lead : limit;
}

/** Index of the byte that may lead the last character before `limit`: before its (at most 3) continuation bytes. */
function lastLeadIndex(bytes: Uint8Array, limit: number): number {
  let start = limit;
  while (start > 0 && limit - start < 3 && isContinuation(bytes[start - 1] as number)) start--;
  // no continuation bytes at the end (or nothing but them): the last byte is a whole character or starts one
  return start === 0 || start === limit ? limit - 1 : start - 1;
}

/**
 * Where a byte suffix of UTF-8 text may start without cutting a character: `start`, moved past the
 * (at most 3) continuation bytes of a character that began before it.
 */
export function utf8SuffixStart(bytes: Uint8Array, start = 0): number {
  let at = Math.max(0, start);
  while (at < bytes.length && at - start < 3 && isContinuation(bytes[at] as number)) at++;
  return at;
}

/** The line that stands for the middle of a command's output a head-and-tail bound left out (worker and server). */
export const omittedOutputMarker = (bytes: number): string => `\n…[${bytes} bytes of output omitted]…\n`;
/** Finds the line `omittedOutputMarker` writes; its group 1 is the number of bytes left out. */
export const OMITTED_OUTPUT_MARKER = /\n…\[(\d+) bytes of output omitted\]…\n/;
