/** Values a script can insert with `{{name}}` in `content` and tool-call `arguments`. */
export const TEMPLATE_VARIABLES = [
  'request_number',
  'rule_call',
  'turn',
  'tool_message_count',
  'message_count',
  'step_number',
  'step_total',
  'model',
] as const;

export type TemplateVariable = (typeof TEMPLATE_VARIABLES)[number];
export type TemplateValues = Record<TemplateVariable, string | number>;

const PLACEHOLDER = /\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}/g;
const WHOLE_PLACEHOLDER = /^\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}$/;

function isKnown(name: string): name is TemplateVariable {
  return (TEMPLATE_VARIABLES as readonly string[]).includes(name);
}

function collectStrings(value: unknown, into: string[]): string[] {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) value.forEach((item) => collectStrings(item, into));
  else if (value !== null && typeof value === 'object')
    Object.values(value).forEach((item) => collectStrings(item, into));
  return into;
}

/** Names used in `{{...}}` anywhere inside `value` that are not template variables. */
export function unknownTemplateVariables(value: unknown): string[] {
  const unknown = new Set<string>();
  for (const text of collectStrings(value, [])) {
    for (const match of text.matchAll(PLACEHOLDER)) {
      const name = match[1] ?? '';
      if (!isKnown(name)) unknown.add(name);
    }
  }
  return [...unknown];
}

export function renderText(text: string, values: TemplateValues): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => (isKnown(name) ? String(values[name]) : whole));
}

/**
 * Renders every string inside `value`. A string that is exactly one placeholder of a numeric
 * variable becomes that number, so `seconds: "{{step_number}}"` yields a JSON number.
 */
export function renderValue(value: unknown, values: TemplateValues): unknown {
  if (typeof value === 'string') {
    const name = WHOLE_PLACEHOLDER.exec(value)?.[1];
    if (name !== undefined && isKnown(name) && typeof values[name] === 'number') return values[name];
    return renderText(value, values);
  }
  if (Array.isArray(value)) return value.map((item) => renderValue(item, values));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renderValue(item, values)]));
  }
  return value;
}
