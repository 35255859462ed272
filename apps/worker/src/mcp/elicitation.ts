import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { MAX_CHOICE_CHARS, MAX_QUESTION_CHOICES } from '@svc/protocol';

type Params = ElicitRequest['params'];
type FormParams = Extract<Params, { requestedSchema: unknown }>;
type FieldSchema = FormParams['requestedSchema']['properties'][string];

const DECLINE = /^\s*(no|decline|cancel|refuse)\b/i;

/** An elicitation as a question: its text, and its choices when its answers are few (decision 0079). */
export interface ElicitationQuestion {
  question: string;
  choices?: string[];
}

/** A choice that declines; a form value that reads as a decline cannot be a choice beside it. */
const DECLINE_CHOICE = 'decline';

/**
 * An MCP server's elicitation as an `ask_user` question. The loop has one way to ask a person (a text
 * question, a text answer), so a form becomes a list of its fields to answer as JSON (or as the value
 * alone when there is one field), and a URL to visit becomes a question to answer once done. A URL, and
 * a form of one enum or boolean field, have few answers: those are its choices, buttons for the person.
 */
export function elicitationQuestion(server: string, params: Params): ElicitationQuestion {
  // The server's text never passes for an approval question (approval.ts), whatever it holds.
  const intro = `The MCP server "${server}" asks: ${params.message.replaceAll('[mcp-call', '[mcp call')}`;
  if (!('requestedSchema' in params)) {
    return {
      question: `${intro}\n\nOpen ${String((params as { url?: string }).url)} and answer "done" when finished, or "no" to decline.`,
      choices: ['done', 'no'],
    };
  }
  const choices = singleFieldChoices(params.requestedSchema.properties);
  if (choices)
    return { question: `${intro}\n\nAnswer with one of the choices, or "${DECLINE_CHOICE}" to decline.`, choices };
  return { question: formQuestion(intro, params.requestedSchema) };
}

/**
 * The values of a form's only field when it is an enum or a boolean, and "decline"; null when they do not
 * fit a question's choices (too many, too long, or one that would read as a decline).
 */
function singleFieldChoices(properties: FormParams['requestedSchema']['properties']): string[] | null {
  const fields = Object.values(properties);
  if (fields.length !== 1) return null;
  const field = fields[0]!;
  const values =
    field.type === 'boolean'
      ? ['true', 'false']
      : 'enum' in field && Array.isArray(field.enum)
        ? field.enum.map(String)
        : null;
  if (!values) return null;
  const choices = [...values, DECLINE_CHOICE];
  const fits =
    new Set(choices).size === choices.length &&
    choices.length <= MAX_QUESTION_CHOICES &&
    values.every((v) => v.trim() === v && v.length > 0 && v.length <= MAX_CHOICE_CHARS && !DECLINE.test(v));
  return fits ? choices : null;
}

function formQuestion(intro: string, schema: FormParams['requestedSchema']): string {
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
