/** A failure in plain words: what happened first, the raw error kept as detail. */
export interface FailureText {
  headline: string;
  detail: string;
}

const RULES: [RegExp, string][] = [
  [
    /\b(GET|PUT|POST|PATCH|DELETE) \S+ failed\b|fetch failed|ECONNREFUSED|ECONNRESET|ENOTFOUND|socket hang up/i,
    'The worker lost its connection to the server while saving its work.',
  ],
  [/LLM call failed|LLM reply|\bHTTP [45]\d\d\b/i, 'The language model could not be reached or gave no usable answer.'],
  [/no progress after \d+ LLM turns/i, 'The agent kept working on a step without finishing it, and gave up.'],
  [/timed out|timeout/i, 'Something took too long and was stopped.'],
  [/invalid agent state/i, 'The agent made a plan change it was not allowed to make.'],
  [/sandbox|bwrap/i, 'A command could not be run in the worker’s sandbox.'],
  [/workspace|leaves the workspace/i, 'The agent tried to use a file outside its workspace.'],
];

export function describeFailure(error: string | null): FailureText {
  const detail = error?.trim() ?? '';
  if (!detail) return { headline: 'The run stopped because of an error; the worker gave no reason.', detail: '' };
  const rule = RULES.find(([pattern]) => pattern.test(detail));
  return { headline: rule ? rule[1] : 'The run stopped because of an error.', detail };
}
