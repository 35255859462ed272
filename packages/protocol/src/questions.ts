import { z } from 'zod';

/** Bounds of an `ask_user` question's choices and timeout (issue 29, decision 0075). */
export const MAX_QUESTION_CHOICES = 10;
export const MAX_CHOICE_CHARS = 100;
/** A default answer without choices is free text, but short: it is shown on the question card. */
export const MAX_DEFAULT_ANSWER_CHARS = 500;
export const MIN_QUESTION_TIMEOUT_SECONDS = 10;
export const MAX_QUESTION_TIMEOUT_SECONDS = 7 * 24 * 3600;

/**
 * What a question may add to its text: choices the answer must be one of, a default answer, and a
 * timeout after which the server answers with the default. One shape for the tool, the worker's
 * status update and the server, so all three refuse the same things.
 */
export const QuestionOptionsShape = {
  choices: z.array(z.string().trim().min(1).max(MAX_CHOICE_CHARS)).min(2).max(MAX_QUESTION_CHOICES).optional(),
  default: z.string().trim().min(1).max(MAX_DEFAULT_ANSWER_CHARS).optional(),
  timeout_seconds: z.int().min(MIN_QUESTION_TIMEOUT_SECONDS).max(MAX_QUESTION_TIMEOUT_SECONDS).optional(),
};

export interface QuestionOptions {
  choices?: string[];
  default?: string;
  timeout_seconds?: number;
}

/** The rules between the options: distinct choices, a default among them, a timeout only with a default. */
export function checkQuestionOptions(options: QuestionOptions, ctx: z.RefinementCtx): void {
  const { choices, default: fallback, timeout_seconds } = options;
  if (choices && new Set(choices).size !== choices.length)
    ctx.addIssue({ code: 'custom', path: ['choices'], message: 'choices must be distinct' });
  if (choices && fallback !== undefined && !choices.includes(fallback))
    ctx.addIssue({ code: 'custom', path: ['default'], message: 'default must be one of the choices' });
  if (timeout_seconds !== undefined && fallback === undefined)
    ctx.addIssue({ code: 'custom', path: ['timeout_seconds'], message: 'timeout_seconds needs a default' });
}

/** Whether an answer is acceptable for a question with these choices (any answer when there are none). */
export const answersChoices = (choices: readonly string[] | null | undefined, answer: string): boolean =>
  !choices || choices.length === 0 || choices.includes(answer);
