import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { startScriptedLlm, type RunningScriptedLlm, type ScriptedLlmOptions } from '../src';

const running: RunningScriptedLlm[] = [];

/** Starts a server on a free port; every server started here is closed after each test. */
export async function startServer(options: ScriptedLlmOptions = {}): Promise<RunningScriptedLlm> {
  const server = await startScriptedLlm(options);
  running.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
});

export function clientFor(server: { url: string }, maxRetries = 0): OpenAI {
  return new OpenAI({ baseURL: server.url, apiKey: 'test-key', maxRetries });
}

/** A conversation whose system prompt starts with the worker's phase marker, as prompts/*.md do. */
export function conversation(marker: string, user: string): ChatCompletionMessageParam[] {
  return [
    { role: 'system', content: `# ${marker}\nYou are the agent.` },
    { role: 'user', content: user },
  ];
}

export function tool(name: string): ChatCompletionTool {
  return {
    type: 'function',
    function: { name, description: `the ${name} tool`, parameters: { type: 'object', properties: {} } },
  };
}

/** The assistant tool-call turn and the tool result a worker appends after a tool call. */
export function toolTurn(name: string, output: string, id = `call_${name}`): ChatCompletionMessageParam[] {
  return [
    { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: '{}' } }] },
    { role: 'tool', tool_call_id: id, content: output },
  ];
}

/** The first tool call of a completion, with its arguments parsed. */
export function firstToolCall(completion: OpenAI.Chat.ChatCompletion): { name: string; args: unknown } {
  const call = completion.choices[0]?.message.tool_calls?.[0];
  if (call === undefined || call.type !== 'function')
    throw new Error(`no function tool call in ${JSON.stringify(completion)}`);
  return { name: call.function.name, args: JSON.parse(call.function.arguments) };
}
