/**
 * The question that asks a person to approve one MCP tool call. Its last line names the call exactly,
 * so an answer that arrives after the worker lost the live conversation (a restart, another worker)
 * still runs exactly that call: the question is the one piece of run state every snapshot keeps.
 */
const MARKER = '[mcp-call ';

export interface PendingCall {
  /** the tool as the agent knows it: mcp__<server>__<tool> */
  tool: string;
  args: Record<string, unknown>;
}

export function approvalQuestion(call: PendingCall, server: string, tool: string): string {
  const args = JSON.stringify(call.args, null, 2);
  return [
    `The agent wants to call the tool "${tool}" of the MCP server "${server}", which the server does not mark read-only.`,
    `Arguments:\n${args}`,
    'Answer yes to run exactly this call once, or no to refuse it.',
    `${MARKER}${call.tool} ${JSON.stringify(call.args)}]`,
  ].join('\n\n');
}

/** The call an approval question asks about; null for any other question. */
export function pendingCallOf(question: string | null): PendingCall | null {
  if (!question) return null;
  const at = question.lastIndexOf(`\n\n${MARKER}`);
  if (at < 0 || !question.endsWith(']')) return null;
  const body = question.slice(at + 2 + MARKER.length, -1);
  const space = body.indexOf(' ');
  if (space < 0) return null;
  try {
    const args: unknown = JSON.parse(body.slice(space + 1));
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return null;
    return { tool: body.slice(0, space), args: args as Record<string, unknown> };
  } catch {
    return null;
  }
}

/** Whether a question text could pass for an approval question (ask_user refuses those). */
export const looksLikeApproval = (question: string): boolean => question.includes(MARKER);

/** A yes: "yes", "y", "ok", "approve(d)", "allow", "go ahead", "run it", ... (anything else refuses). */
export function isAffirmative(answer: string): boolean {
  return /^\s*(y|yes|yep|ok|okay|sure|approve[ds]?|allow(ed)?|go ahead|run it|do it|confirm(ed)?)\b/i.test(answer);
}
