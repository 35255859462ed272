import type { z } from 'zod';
import { parseWith } from '@svc/protocol';
import { DomainError } from './errors';

/** Validates input against a protocol schema; a failure names the field (`invalid_input`). */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, where = 'body'): z.infer<S> {
  const result = parseWith(schema, input);
  if (result.ok) return result.value;
  // The protocol's message already starts with the field path when there is one.
  const message = result.error.path ? `${where}.${result.error.message}` : `${where}: ${result.error.message}`;
  throw new DomainError('invalid_input', message);
}
