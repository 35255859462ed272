import type { z } from 'zod';
import { parseWith } from '@svc/protocol';
import { DomainError } from './errors';

/** Validates input against a protocol schema; a failure names the field (`invalid_input`). */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, where = 'body'): z.infer<S> {
  rejectNul(input, where);
  const result = parseWith(schema, input);
  if (result.ok) return result.value;
  // The protocol's message already starts with the field path when there is one.
  const message = result.error.path ? `${where}.${result.error.message}` : `${where}: ${result.error.message}`;
  throw new DomainError('invalid_input', message);
}

const hasNul = (text: string) => text.includes('\u0000');

/**
 * A NUL character in any string (or key) of the input is refused as `invalid_input` naming where it is.
 * PostgreSQL cannot store one in a text column, and no field of the contract has a use for it.
 * Iterative, so a deeply nested body cannot overflow the stack.
 */
export function rejectNul(input: unknown, where = 'body'): void {
  const stack: [unknown, string][] = [[input, where]];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      if (hasNul(value)) throw new DomainError('invalid_input', `${path}: must not contain a NUL character`);
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push([item, `${path}[${i}]`]));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (hasNul(key)) throw new DomainError('invalid_input', `${path}: a key contains a NUL character`);
        stack.push([item, `${path}.${key}`]);
      }
    }
  }
}
