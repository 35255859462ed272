import type { Prisma, Workflow } from '@svc/db';
import type { QuestionOptions } from '@svc/protocol';

/** The columns of an open question besides its text (decision 0075); null when there is no question. */
export const NO_QUESTION_OPTIONS = {
  question_choices: null,
  question_default: null,
  question_deadline: null,
} satisfies Prisma.WorkflowUpdateManyMutationInput;

export interface QuestionColumns {
  question_choices: string | null;
  question_default: string | null;
  question_deadline: Date | null;
}

/** The columns a reported question writes: its choices, its default and its deadline counted from `at`. */
export function questionOptionColumns(options: QuestionOptions, at: Date): QuestionColumns {
  return {
    question_choices: options.choices ? JSON.stringify(options.choices) : null,
    question_default: options.default ?? null,
    question_deadline:
      options.timeout_seconds === undefined ? null : new Date(at.getTime() + options.timeout_seconds * 1000),
  };
}

/** A question's choices as they are written in messages: quoted, comma-separated. */
export const quotedChoices = (choices: readonly unknown[]) => choices.map((c) => JSON.stringify(c)).join(', ');

/** Why an answer outside a question's choices is refused (the REST, MCP and answer-link refusals). */
export const notAChoice = (choices: readonly string[]) =>
  `the answer must be one of the choices: ${quotedChoices(choices)}`;

/** The stored choices of the open question; null when any answer goes. */
export function choicesOf(row: Pick<Workflow, 'question_choices'>): string[] | null {
  return row.question_choices === null ? null : (JSON.parse(row.question_choices) as string[]);
}

/** The open question's options as the wire's optional fields (`workflow_status`, `GET /me/waiting`): only those it has. */
export function questionOptionFields(columns: QuestionColumns): {
  choices?: string[];
  default?: string;
  deadline?: string;
} {
  const choices = choicesOf(columns);
  return {
    ...(choices !== null ? { choices } : {}),
    ...(columns.question_default !== null ? { default: columns.question_default } : {}),
    ...(columns.question_deadline !== null ? { deadline: columns.question_deadline.toISOString() } : {}),
  };
}
