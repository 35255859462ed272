/**
 * Column `llm_call_details.messages` keeps the request's messages as a JSON array; a request that offered
 * tools is kept as `{"messages": [...], "tools": [...]}` instead, so tool definitions need no new column
 * (decision 0076). Rows written before either form read the same way.
 */
export function storedMessages(messages: readonly unknown[], tools: readonly unknown[] | undefined): string {
  return JSON.stringify(tools && tools.length > 0 ? { messages, tools } : messages);
}

/** The messages and tool definitions (absent when none were offered) of a stored `messages` column. */
export function readStoredMessages(text: string): { messages: unknown[]; tools?: unknown[] } {
  const stored = JSON.parse(text) as unknown[] | { messages: unknown[]; tools: unknown[] };
  return Array.isArray(stored) ? { messages: stored } : { messages: stored.messages, tools: stored.tools };
}
