import type { RecordedRequest } from '@svc/scripted-llm';

type Body = { messages?: Array<{ role: string; content?: unknown }> } | null;

/** Which prompt (by its `# svc:<phase>` marker) and which step a recorded LLM request was for. */
export function requestKind(record: RecordedRequest): { phase: string; step: number | null } {
  const messages = (record.body as Body)?.messages ?? [];
  const text = (role: string) =>
    messages
      .filter((m) => m.role === role)
      .map((m) => (typeof m.content === 'string' ? m.content : ''))
      .join('\n');
  const phase = /# svc:(\w+)/.exec(text('system'))?.[1] ?? 'unknown';
  const step = /\bStep (\d+) of \d+\b/.exec(text('user'))?.[1];
  return { phase, step: step === undefined ? null : Number(step) };
}

/** Kinds of the requests recorded from index `from` on. */
export const requestsSince = (requests: readonly RecordedRequest[], from: number) =>
  requests.slice(from).map(requestKind);
