/** Longest requirement a delivery may render (the rest is cut off). */
export const MAX_RENDERED_CHARS = 20_000;
/** Longest value one placeholder inserts. */
const MAX_VALUE_CHARS = 10_000;
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)\s*\}\}/g;

/** The value at `a.b.0.c` in the payload: own properties only (never `__proto__` or `constructor`). */
function lookup(payload: unknown, path: string): unknown {
  let value: unknown = payload;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** The first `max` UTF-16 units of `text`, never ending inside a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(head) ? head.slice(0, -1) : head;
}

function textOf(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * Renders a logic-less template: each `{{path.to.field}}` is replaced by that field of the payload
 * (text as is, numbers and booleans as text, objects and arrays as JSON, missing fields as nothing).
 * Nothing is evaluated: no expressions, sections, partials or helpers; a value is never rendered again,
 * so a payload cannot inject placeholders. The result is cut to MAX_RENDERED_CHARS.
 */
export function renderRequirement(template: string, payload: unknown): string {
  const rendered = template.replace(PLACEHOLDER, (_match, path: string) =>
    cut(textOf(lookup(payload, path)), MAX_VALUE_CHARS),
  );
  return cut(rendered, MAX_RENDERED_CHARS);
}
