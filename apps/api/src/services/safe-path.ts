import type { Stats } from 'node:fs';
import { lstat, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, sep } from 'node:path';
import { DomainError } from '../domain/errors';

/**
 * The one resolver every file, storage and template path goes through (spec 7.1, CONTRACT section 3).
 * Step 1 is lexical: the path and every further percent-decoding of it (double encoding, `%uXXXX`,
 * NFKC look-alikes) must be free of `..`, absolute and drive-letter forms, backslashes, NUL and control
 * characters. Step 2 is on disk: the real path of the deepest existing ancestor must lie inside the real
 * root, so a symlink (of the target or of any parent directory) cannot lead out.
 */

export const MAX_PATH_CHARS = 4096;
export const MAX_SEGMENT_BYTES = 255;
/** Prefix of in-flight upload files; clients can never address them. */
export const UPLOAD_TEMP_PREFIX = '.svc-upload-';

const MAX_DECODE_LAYERS = 4;
const HEX_ESCAPE = /%([0-9a-f]{2})|%u([0-9a-f]{4})/gi;
// C0 and C1 controls, DEL, and the Unicode line/paragraph separators.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const DRIVE = /^[a-z]:/i;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export const invalidPath = (why: string) => new DomainError('invalid_path', `invalid path: ${why}`);

/**
 * Percent-decodes text at the byte level and requires the result to be valid UTF-8, so overlong
 * forms such as `%c0%ae` are refused instead of being read as a dot. This is how a name is read.
 */
export function percentDecode(text: string): string {
  try {
    return utf8.decode(Uint8Array.from(percentBytes(text, false)));
  } catch {
    throw invalidPath('not valid UTF-8 once decoded');
  }
}

function percentBytes(text: string, unicodeEscapes: boolean): number[] {
  const bytes: number[] = [];
  const push = (s: string) => bytes.push(...Buffer.from(s, 'utf8'));
  let last = 0;
  for (const match of text.matchAll(HEX_ESCAPE)) {
    push(text.slice(last, match.index));
    if (match[1] !== undefined) bytes.push(parseInt(match[1], 16));
    else if (unicodeEscapes) push(String.fromCharCode(parseInt(match[2]!, 16)));
    else push(match[0]);
    last = match.index + match[0].length;
  }
  push(text.slice(last));
  return bytes;
}

/**
 * Decodes bytes the way a careless decoder would: overlong sequences become the character they spell
 * (`c0 ae` -> `.`), other invalid bytes become Latin-1 characters. Used only to look for what a
 * further decoding somewhere else could turn a name into, never to name a file.
 */
function naiveDecode(bytes: number[]): string {
  let out = '';
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i]!;
    const length = b >= 0xf0 && b <= 0xf7 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    const continuation = bytes.slice(i + 1, i + length);
    if (length > 1 && continuation.length === length - 1 && continuation.every((c) => (c & 0xc0) === 0x80)) {
      const lead = b & (0xff >> (length + 1));
      out += String.fromCodePoint(continuation.reduce((code, c) => (code << 6) | (c & 0x3f), lead) % 0x110000);
      i += length;
    } else {
      out += String.fromCharCode(b);
      i += 1;
    }
  }
  return out;
}

/** A path part taken from a query string: `+` means a space there. */
export const decodeQueryValue = (raw: string) => percentDecode(raw.replace(/\+/g, ' '));

function checkLayer(text: string): void {
  if (text.includes('\0')) throw invalidPath('NUL byte');
  if (CONTROL.test(text)) throw invalidPath('control character');
  // U+FFFD means something upstream failed to decode a byte sequence (e.g. overlong UTF-8).
  if (text.includes('\uFFFD')) throw invalidPath('undecodable character');
  if (text.includes('\\')) throw invalidPath('backslash');
  if (text.startsWith('/')) throw invalidPath('absolute path');
  if (DRIVE.test(text)) throw invalidPath('drive letter');
  if (hasDotSegment(text)) throw invalidPath('dot segment');
}

/** `..`, `...` and the like, also with white space in them (`. .`); a lone `.` is the current directory. */
function hasDotSegment(text: string): boolean {
  return text.split('/').some((segment) => {
    const squashed = segment.replace(/\s/g, '');
    return segment !== '.' && squashed.length > 0 && /^\.+$/.test(squashed);
  });
}

/** The text and every way it could be read again: further percent-decodings and their NFKC forms. */
function layersOf(text: string): string[] {
  const layers = [text, text.normalize('NFKC')];
  let current = text;
  for (let i = 0; i < MAX_DECODE_LAYERS && /%(?:[0-9a-f]{2}|u[0-9a-f]{4})/i.test(current); i++) {
    current = naiveDecode(percentBytes(current, true));
    layers.push(current, current.normalize('NFKC'));
  }
  return layers;
}

export interface SegmentOptions {
  /** Segment names refused anywhere in the path, compared case-insensitively (e.g. `.git` for templates). */
  forbiddenSegments?: readonly string[];
}

/**
 * Checks an already decoded relative path and returns its segments (`.` and empty segments dropped,
 * so `''` and `.` are the root). Throws `invalid_path` for anything that could leave the root.
 */
export function safeSegments(path: string, options: SegmentOptions = {}): string[] {
  if (path.length > MAX_PATH_CHARS) throw invalidPath('too long');
  for (const layer of layersOf(path)) checkLayer(layer);
  const segments = path.split('/').filter((s) => s !== '' && s !== '.');
  const forbidden = new Set((options.forbiddenSegments ?? []).map((s) => s.toLowerCase()));
  for (const segment of segments) {
    if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES) throw invalidPath('name too long');
    if (segment.startsWith(UPLOAD_TEMP_PREFIX)) throw invalidPath('reserved name');
    const comparable = segment
      .normalize('NFKC')
      .toLowerCase()
      .replace(/[.\s]+$/, '');
    if (forbidden.has(comparable) || forbidden.has(segment.toLowerCase()))
      throw invalidPath(`"${segment}" is not allowed`);
  }
  return segments;
}

export interface SafePath {
  /** Real path of the root (which may not exist yet). */
  root: string;
  /** `/`-separated path relative to the root; `''` is the root itself. */
  relative: string;
  /** Where it lives on disk: the real path of its deepest existing ancestor plus the missing rest. */
  absolute: string;
  /** `stat` of `absolute` when it exists. */
  stats: Stats | null;
}

const isInside = (path: string, root: string) =>
  path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);

/** Real path of the deepest existing ancestor of `path`, plus the segments below it that do not exist. */
async function deepestExisting(path: string): Promise<{ real: string; missing: string[] }> {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      return { real: await realpath(current), missing };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw invalidPath('symlink loop');
      if (code === 'ENAMETOOLONG') throw invalidPath('too long');
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    }
    // A symlink whose target is missing cannot be checked, so it is refused outright.
    const link = await lstat(current).catch(() => null);
    if (link?.isSymbolicLink()) throw invalidPath('dangling symlink');
    const parent = dirname(current);
    if (parent === current) return { real: current, missing };
    missing.unshift(basename(current));
    current = parent;
  }
}

/** Resolves a decoded relative path inside `root`, or throws `invalid_path` without touching anything. */
export async function resolveSafePath(root: string, path: string, options: SegmentOptions = {}): Promise<SafePath> {
  const segments = safeSegments(path, options);
  const rootAt = await deepestExisting(root);
  const realRoot = join(rootAt.real, ...rootAt.missing);
  const target = await deepestExisting(join(realRoot, ...segments));
  const absolute = join(target.real, ...target.missing);
  if (!isInside(absolute, realRoot)) throw invalidPath('leads outside the root (symlink)');
  const stats = target.missing.length === 0 ? await stat(absolute).catch(() => null) : null;
  return { root: realRoot, relative: segments.join('/'), absolute, stats };
}

/** `relative` of a path inside a resolved root, `/`-separated (for listings and events). */
export function relativeTo(root: string, absolute: string): string {
  return absolute === root
    ? ''
    : absolute
        .slice(root.length + 1)
        .split(sep)
        .join('/');
}

/** Joins a directory (`?path=`) and a name the client sent, for the resolver to check as one path. */
export const joinClientPath = (dir: string, name: string) => (dir === '' ? name : `${dir.replace(/\/+$/, '')}/${name}`);
