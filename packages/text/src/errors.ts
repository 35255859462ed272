export type TextInputErrorCode = 'invalid_budget' | 'invalid_text' | 'invalid_bytes';

/** Thrown for arguments a caller got wrong (a negative budget, a non-string text, ...). */
export class TextInputError extends Error {
  override readonly name = 'TextInputError';

  constructor(
    readonly code: TextInputErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export function assertBudget(budget: unknown, what: string): asserts budget is number {
  if (typeof budget !== 'number' || !Number.isSafeInteger(budget) || budget < 0) {
    throw new TextInputError('invalid_budget', `${what} must be a non-negative integer, got ${String(budget)}`);
  }
}

export function assertText(text: unknown): asserts text is string {
  if (typeof text !== 'string') {
    throw new TextInputError('invalid_text', `text must be a string, got ${text === null ? 'null' : typeof text}`);
  }
}
