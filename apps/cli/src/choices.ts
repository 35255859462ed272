import type { Workflow } from '@svc/protocol';
import { terminalSafe } from './terminal-text';

export type Asked = Pick<Workflow, 'question_choices' | 'question_default' | 'question_deadline'>;

/** How the open question's choices and deadline read on a terminal; none for a free-text question. */
export function choiceLines(asked: Asked): string[] {
  const lines: string[] = [];
  const choices = asked.question_choices ?? [];
  if (choices.length > 0)
    lines.push(
      `choices: ${choices.map((c, i) => `${i + 1}) ${terminalSafe(c)}`).join('  ')} (answer one, or its number)`,
    );
  if (asked.question_deadline && asked.question_default !== null)
    lines.push(
      `answers ${JSON.stringify(terminalSafe(asked.question_default))} automatically at ${new Date(asked.question_deadline).toLocaleString()}`,
    );
  return lines;
}

/** A typed answer as the question takes it: a choice's number stands for that choice. */
export function pickChoice(choices: readonly string[] | null | undefined, text: string): string {
  if (!choices || choices.length === 0 || choices.includes(text)) return text;
  const trimmed = text.trim();
  if (choices.includes(trimmed)) return trimmed;
  const index = /^\d+$/.test(trimmed) ? Number(trimmed) - 1 : -1;
  return choices[index] ?? text;
}
