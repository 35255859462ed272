/** What a masked secret becomes in every text the service stores or streams. */
export const SECRET_MASK = '***';
/** Shortest secret value: shorter ones would mask ordinary text (GitHub Actions' rule). */
export const SECRET_MIN_LENGTH = 4;

/** Masks one text stream that arrives in chunks, so a value split across chunks is still masked. */
export interface MaskingStream {
  /** Masked text that is safe to emit now; a tail that could begin a value is held back. */
  push(chunk: string): string;
  /** The masked rest, at the end of the stream. */
  flush(): string;
}

/**
 * Replaces secret values, and the forms a command commonly prints them in, with `***`: the value,
 * its base64 (standard and URL-safe, at each of the three byte alignments inside a longer encoding),
 * URL-encoding, hex (both cases), and its JSON string escape. Values under SECRET_MIN_LENGTH are ignored.
 */
export class SecretMasker {
  private readonly pattern: RegExp | null;
  /** Longest form; a streamed tail shorter than this may still grow into a match. */
  private readonly longestForm: number;

  constructor(values: readonly string[]) {
    const forms = new Set<string>();
    for (const value of values) {
      if (value.length < SECRET_MIN_LENGTH) continue;
      for (const form of formsOf(value)) if (form.length >= SECRET_MIN_LENGTH) forms.add(form);
    }
    // Longest first, so a form that contains a shorter one is masked whole.
    const sorted = [...forms].sort((a, b) => b.length - a.length);
    this.pattern = sorted.length ? new RegExp(sorted.map(escapeRegExp).join('|'), 'g') : null;
    this.longestForm = sorted[0]?.length ?? 0;
  }

  get isEmpty(): boolean {
    return this.pattern === null;
  }

  mask(text: string): string {
    return this.pattern ? text.replace(this.pattern, SECRET_MASK) : text;
  }

  /** A copy of a JSON value with every string in it masked (object keys are kept). */
  maskJson<T>(value: T): T {
    return this.pattern ? (maskValue(value, (text) => this.mask(text)) as T) : value;
  }

  stream(): MaskingStream {
    if (!this.pattern) return { push: (chunk) => chunk, flush: () => '' };
    const pattern = new RegExp(this.pattern.source, 'g');
    const holdBack = this.longestForm - 1;
    let held = '';
    return {
      push: (chunk) => {
        const text = held + chunk;
        // A match starting before `cut` has at least longestForm characters after its start, so it is final.
        const cut = text.length - holdBack;
        if (cut <= 0) {
          held = text;
          return '';
        }
        let out = '';
        let emitted = 0;
        pattern.lastIndex = 0;
        for (let match = pattern.exec(text); match && match.index < cut; match = pattern.exec(text)) {
          out += text.slice(emitted, match.index) + SECRET_MASK;
          emitted = match.index + match[0].length;
        }
        let end = Math.max(cut, emitted);
        // Never split a surrogate pair between two emitted pieces.
        if (end > emitted && end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
        held = text.slice(end);
        return out + text.slice(emitted, end);
      },
      flush: () => {
        const rest = this.mask(held);
        held = '';
        return rest;
      },
    };
  }
}

function formsOf(value: string): string[] {
  const bytes = utf8Bytes(value);
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  const forms = [
    value,
    value.trim(),
    encodeURIComponent(value),
    JSON.stringify(value).slice(1, -1),
    hex,
    hex.toUpperCase(),
  ];
  for (const encoded of base64Forms(bytes)) {
    const urlSafe = encoded.replace(/\+/g, '-').replace(/\//g, '_');
    forms.push(encoded, urlSafe, urlSafe.replace(/=+$/, ''));
  }
  return forms;
}

/**
 * The base64 characters determined by the value alone when it starts 0, 1 or 2 bytes into an encoded
 * stream: a prefix of `offset` bytes shifts its bits, so each alignment encodes it differently.
 */
function base64Forms(bytes: readonly number[]): string[] {
  // The whole padded encoding too, so no partly determined last character is left beside the mask.
  const forms: string[] = [base64(bytes)];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = base64([...Array<number>(offset).fill(0), ...bytes]);
    const first = Math.ceil((offset * 8) / 6);
    const last = Math.floor(((offset + bytes.length) * 8) / 6);
    forms.push(encoded.slice(first, last));
  }
  return forms;
}

// Written out rather than TextEncoder/btoa: this package builds without DOM or Node types.
function utf8Bytes(text: string): number[] {
  const bytes: number[] = [];
  for (const char of text) {
    let code = char.codePointAt(0) ?? 0;
    if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd; // a lone surrogate, as TextEncoder writes it
    if (code < 0x80) bytes.push(code);
    else if (code < 0x800) bytes.push(0xc0 | (code >> 6), 0x80 | (code & 63));
    else if (code < 0x10000) bytes.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63));
    else bytes.push(0xf0 | (code >> 18), 0x80 | ((code >> 12) & 63), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63));
  }
  return bytes;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function base64(bytes: readonly number[]): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const [a = 0, b = 0, c = 0] = [bytes[i], bytes[i + 1], bytes[i + 2]];
    const group = (a << 16) | (b << 8) | c;
    const chars = [18, 12, 6, 0].map((shift) => BASE64[(group >> shift) & 63]);
    const kept = Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6));
    out += chars.slice(0, kept).join('') + '='.repeat(4 - kept);
  }
  return out;
}

function maskValue(value: unknown, mask: (text: string) => string): unknown {
  if (typeof value === 'string') return mask(value);
  if (Array.isArray(value)) return value.map((item) => maskValue(item, mask));
  if (value && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) copy[key] = maskValue(item, mask);
    return copy;
  }
  return value;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
