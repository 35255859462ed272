import type { z } from 'zod';
import { parseWith } from '@svc/protocol';
import { DomainError } from './errors';

/** Validates input against a protocol schema; a failure names the field (`invalid_input`). */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, where = 'body'): z.infer<S> {
  rejectUnstorableText(input, where);
  const result = parseWith(schema, input);
  if (result.ok) return result.value;
  // The protocol's message already starts with the field path when there is one.
  const message = result.error.path ? `${where}.${result.error.message}` : `${where}: ${result.error.message}`;
  throw new DomainError('invalid_input', message);
}

/** A lone UTF-16 surrogate: text that has no UTF-8 form. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function problemOf(text: string): string | null {
  if (text.includes('\u0000')) return 'a NUL character';
  if (LONE_SURROGATE.test(text)) return 'a lone surrogate (text that is not well-formed Unicode)';
  return null;
}

/**
 * A NUL character or a lone surrogate in any string (or key) of the input is refused as
 * `invalid_input` naming where it is: PostgreSQL cannot store a NUL in a text column, a lone surrogate
 * has no UTF-8 form, and no field of the contract has a use for either. Iterative, so a deeply nested
 * body cannot overflow the stack.
 */
export function rejectUnstorableText(input: unknown, where = 'body'): void {
  const stack: [unknown, string][] = [[input, where]];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      const problem = problemOf(value);
      if (problem) throw new DomainError('invalid_input', `${path}: must not contain ${problem}`);
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push([item, `${path}[${i}]`]));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        const problem = problemOf(key);
        if (problem) throw new DomainError('invalid_input', `${path}: a key contains ${problem}`);
        stack.push([item, `${path}.${key}`]);
      }
    }
  }
}
