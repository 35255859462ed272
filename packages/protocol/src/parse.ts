import type { z } from 'zod';

export interface ProtocolIssue {
  /** dotted field path, e.g. `data.steps.0.title`; empty for the whole value */
  path: string;
  message: string;
}

/** Why a value does not fit a schema; `code` maps directly to an API error code. */
export interface ProtocolError {
  code: 'invalid_input';
  /** one line naming the first problem and its field */
  message: string;
  /** path of the first problem */
  path: string;
  issues: ProtocolIssue[];
}

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: ProtocolError };

function issueLine(issue: ProtocolIssue): string {
  return issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`;
}

function protocolError(issues: ProtocolIssue[]): ProtocolError {
  const first = issues[0] ?? { path: '', message: 'invalid input' };
  return { code: 'invalid_input', message: issueLine(first), path: first.path, issues };
}

/** Validates `input` against `schema`; never throws. */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown): ParseResult<z.output<S>> {
  let result: z.ZodSafeParseResult<z.output<S>>;
  try {
    result = schema.safeParse(input) as z.ZodSafeParseResult<z.output<S>>;
  } catch (err) {
    // a refinement that throws is a bug in the schema, still reported as bad input, not a crash
    return { ok: false, error: protocolError([{ path: '', message: `validation failed: ${String(err)}` }]) };
  }
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, error: protocolError(result.error.issues.flatMap((i) => describeIssue(i, input))) };
}

function joinPath(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** zod's generic messages made specific: unknown discriminators and unknown fields name the culprit. */
function describeIssue(issue: z.core.$ZodIssue, input: unknown): ProtocolIssue[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({ path: joinPath([...issue.path, key]), message: 'unknown field' }));
  }
  if (issue.code === 'invalid_union' && 'discriminator' in issue && typeof issue.discriminator === 'string') {
    const value = valueAt(input, issue.path);
    const message =
      value === undefined
        ? `missing ${issue.discriminator}`
        : `unknown ${issue.discriminator} ${JSON.stringify(value)}`;
    return [{ path: joinPath(issue.path), message }];
  }
  return [{ path: joinPath(issue.path), message: issue.message }];
}

/** Parses one JSON text (e.g. a WebSocket frame) and validates it; never throws. */
export function parseJsonMessage<S extends z.ZodType>(schema: S, raw: string): ParseResult<z.output<S>> {
  if (typeof raw !== 'string') {
    return { ok: false, error: protocolError([{ path: '', message: 'expected a JSON text message' }]) };
  }
  let input: unknown;
  try {
    input = JSON.parse(raw);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return { ok: false, error: protocolError([{ path: '', message: `invalid JSON: ${reason}` }]) };
  }
  return parseWith(schema, input);
}
