import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { ApiError } from '../api/server-api';
import { LinkError } from '../link/server-link';
import { errorMessage } from '../util/logger';
import { AbortedError } from '../util/aborted';
import { WorkspacePathError } from '../workspace/paths';
import type { Tool, ToolContext, ToolResult } from './tool';

/** The tool as the OpenAI API describes functions: its parameters as JSON schema. */
export function toolSpec(tool: Tool): ChatCompletionFunctionTool {
  const { $schema: _ignored, ...parameters } = (tool.jsonSchema ??
    z.toJSONSchema(tool.parameters, { io: 'input' })) as Record<string, unknown>;
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters } };
}

export interface Invocation {
  /** The arguments as an object (for the log's `tool_input`); `{ _raw }` when not a JSON object. */
  input: Record<string, unknown>;
  result: ToolResult;
}

function issuesText(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : '(arguments)'}: ${i.message}`).join('; ');
}

/** The arguments as a JSON object, or why they are not one. */
function parseArguments(raw: string): { ok: true; input: Record<string, unknown> } | { ok: false; error: string } {
  let parsed: unknown;
  try {
    parsed = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch (err) {
    return { ok: false, error: `arguments are not valid JSON: ${errorMessage(err)}` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { ok: false, error: 'arguments must be a JSON object' };
  return { ok: true, input: parsed as Record<string, unknown> };
}

/** A failure the tools expect (the server, the link, a workspace path, a system call), told by its message. */
function expectedFailure(err: unknown): boolean {
  if (err instanceof ApiError || err instanceof LinkError || err instanceof WorkspacePathError) return true;
  return Boolean((err as NodeJS.ErrnoException).code);
}

/** Why a tool failed, as the LLM reads it; anything unexpected says so. */
function failureReason(err: unknown): string {
  if (err instanceof ApiError && err.request) return `${err.request}: ${err.message}`;
  return expectedFailure(err) ? errorMessage(err) : `unexpected error: ${errorMessage(err)}`;
}

/**
 * Parses the LLM's JSON arguments, validates them and runs the tool. Bad arguments and failures
 * come back as an error result the LLM can read and correct; only a cancel is thrown.
 */
export async function invokeTool(tool: Tool, rawArguments: string, ctx: ToolContext): Promise<Invocation> {
  const args = parseArguments(rawArguments);
  if (!args.ok) return { input: { _raw: rawArguments }, result: { output: args.error, isError: true } };
  const { input } = args;
  const checked = tool.parameters.safeParse(input);
  if (!checked.success) {
    return {
      input,
      result: { output: `invalid arguments for ${tool.name}: ${issuesText(checked.error)}`, isError: true },
    };
  }
  try {
    return { input, result: await tool.run(checked.data, ctx) };
  } catch (err) {
    if (err instanceof AbortedError) throw err;
    if (ctx.signal.aborted) throw new AbortedError();
    return { input, result: { output: `${tool.name} failed: ${failureReason(err)}`, isError: true } };
  }
}
