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
  const { $schema: _ignored, ...parameters } = z.toJSONSchema(tool.parameters, { io: 'input' }) as Record<
    string,
    unknown
  >;
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

/**
 * Parses the LLM's JSON arguments, validates them and runs the tool. Bad arguments and failures
 * come back as an error result the LLM can read and correct; only a cancel is thrown.
 */
export async function invokeTool(tool: Tool, rawArguments: string, ctx: ToolContext): Promise<Invocation> {
  let parsed: unknown;
  try {
    parsed = rawArguments.trim() === '' ? {} : JSON.parse(rawArguments);
  } catch (err) {
    return {
      input: { _raw: rawArguments },
      result: { output: `arguments are not valid JSON: ${errorMessage(err)}`, isError: true },
    };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { input: { _raw: rawArguments }, result: { output: 'arguments must be a JSON object', isError: true } };
  }
  const input = parsed as Record<string, unknown>;
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
    if (err instanceof AbortedError || ctx.signal.aborted) throw err instanceof AbortedError ? err : new AbortedError();
    const known = err instanceof ApiError || err instanceof LinkError || err instanceof WorkspacePathError;
    const code = (err as NodeJS.ErrnoException).code;
    const reason =
      err instanceof ApiError && err.request
        ? `${err.request}: ${err.message}`
        : known || code
          ? errorMessage(err)
          : `unexpected error: ${errorMessage(err)}`;
    return { input, result: { output: `${tool.name} failed: ${reason}`, isError: true } };
  }
}
