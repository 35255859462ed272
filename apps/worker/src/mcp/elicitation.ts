import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';

type Params = ElicitRequest['params'];
type FormParams = Extract<Params, { requestedSchema: unknown }>;
type FieldSchema = FormParams['requestedSchema']['properties'][string];

const DECLINE = /^\s*(no|decline|cancel|refuse)\b/i;

/**
 * An MCP server's elicitation as an `ask_user` question. The loop has one way to ask a person (a text
 * question, a text answer), so a form becomes a list of its fields to answer as JSON (or as the value
 * alone when there is one field), and a URL to visit becomes a question to answer once done.
 */
export function elicitationQuestion(server: string, params: Params): string {
  // The server's text never passes for an approval question (approval.ts), whatever it holds.
  const intro = `The MCP server "${server}" asks: ${params.message.replaceAll('[mcp-call', '[mcp call')}`;
  if (!('requestedSchema' in params)) {
    return `${intro}\n\nOpen ${String((params as { url?: string }).url)} and answer "done" when finished, or "no" to decline.`;
  }
  const schema = params.requestedSchema;
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties).map(
    ([name, field]) =>
      `- ${name} (${describeField(field)}${required.has(name) ? ', required' : ''})` +
      (field.description ? `: ${field.description}` : ''),
  );
  const single = fields.length === 1 ? ' (or the value alone)' : '';
  return `${intro}\n\nFields:\n${fields.join('\n')}\n\nAnswer with a JSON object of the fields${single}, or "no" to decline.`;
}

function describeField(field: FieldSchema): string {
  const values = 'enum' in field && Array.isArray(field.enum) ? `: one of ${field.enum.join(', ')}` : '';
  return `${field.type}${values}`;
}

/** The person's answer as the server's elicitation result (the SDK checks it against the form). */
export function elicitationResult(params: Params, answer: string): ElicitResult {
  if (DECLINE.test(answer)) return { action: 'decline' };
  if (!('requestedSchema' in params)) return { action: 'accept' };
  const properties = Object.entries(params.requestedSchema.properties);
  const parsed = parseObject(answer);
  if (parsed) return { action: 'accept', content: parsed as ElicitResult['content'] };
  if (properties.length !== 1) return { action: 'decline' };
  const [name, field] = properties[0]!;
  return { action: 'accept', content: { [name]: coerce(field, answer.trim()) } };
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

function coerce(field: FieldSchema, text: string): string | number | boolean {
  if (field.type === 'number' || field.type === 'integer') return Number(text);
  if (field.type === 'boolean') return /^(y|yes|true|ok|1)$/i.test(text);
  return text;
}
