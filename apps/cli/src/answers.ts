import { readFileSync } from 'node:fs';
import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { CliError, EXIT } from './errors';
import { terminalSafe } from './terminal-text';
import { choiceLines, pickChoice, type Asked } from './choices';

/** Where answers to the agent's questions come from; null: none is available (the caller exits 3). */
export interface AnswerSource {
  /** `asked` tells the question's choices (a typed number picks one) and its deadline. */
  answer(question: string, asked?: Asked): Promise<string | null>;
  close(): void;
}

/**
 * Answers typed as lines: on a terminal with a prompt (stderr), or piped into stdin
 * (`--answer-file -`: one line per question, in order; end of input means no more answers).
 */
export class LineAnswers implements AnswerSource {
  private readonly rl: Interface;
  private readonly lines: string[] = [];
  private waiting: ((line: string | null) => void) | null = null;
  private ended = false;

  constructor(
    input: Readable,
    private readonly prompt: Writable | null,
  ) {
    this.rl = createInterface({ input, terminal: false, crlfDelay: Infinity });
    this.rl.on('line', (line) => {
      if (this.waiting) {
        const resolve = this.waiting;
        this.waiting = null;
        resolve(line);
      } else this.lines.push(line);
    });
    this.rl.on('close', () => {
      this.ended = true;
      this.waiting?.(null);
      this.waiting = null;
    });
  }

  async answer(question: string, asked?: Asked): Promise<string | null> {
    const extra = asked ? choiceLines(asked).map((line) => `  ${line}\n`) : [];
    for (;;) {
      this.prompt?.write(`\n? ${terminalSafe(question)}\n${extra.join('')}> `);
      const line =
        this.lines.shift() ?? (this.ended ? null : await new Promise<string | null>((r) => (this.waiting = r)));
      if (line === null) return null;
      if (line.trim() !== '') return pickChoice(asked?.question_choices, line);
      // a blank answer is refused by the server: ask again on a terminal, skip it in piped input
    }
  }

  close(): void {
    this.rl.close();
  }
}

/**
 * `--answer-file <file>`: a JSON object `{"<question>": "<answer>", "*": "<for any other question>"}`,
 * a JSON array of answers used in order, or plain text (the whole file answers every question).
 */
export class FileAnswers implements AnswerSource {
  private used = 0;

  constructor(private readonly answers: Record<string, string> | string[] | string) {}

  static load(file: string): FileAnswers {
    const text = readAnswerFile(file);
    const trimmed = text.trim();
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) return new FileAnswers(parseJsonAnswers(trimmed, file));
    if (trimmed === '') throw new CliError(`the answer file ${file} is empty`, EXIT.cancelledOrUsage);
    return new FileAnswers(text.replace(/\r?\n$/, ''));
  }

  async answer(question: string): Promise<string | null> {
    const answers = this.answers;
    if (typeof answers === 'string') return answers;
    if (Array.isArray(answers)) return answers[this.used++] ?? null;
    return answers[question] ?? answers[question.trim()] ?? answers['*'] ?? null;
  }

  close(): void {}
}

function readAnswerFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read the answer file ${file}: ${(error as Error).message}`, EXIT.cancelledOrUsage);
  }
}

const allStrings = (values: unknown[]): boolean => values.every((a) => typeof a === 'string');

/** An array of answers, or an object of question -> answer. */
function isAnswers(json: unknown): json is Record<string, string> | string[] {
  if (Array.isArray(json)) return allStrings(json);
  return typeof json === 'object' && json !== null && allStrings(Object.values(json));
}

function parseJsonAnswers(text: string, file: string): Record<string, string> | string[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CliError(`the answer file ${file} is not valid JSON: ${(error as Error).message}`, EXIT.cancelledOrUsage);
  }
  if (!isAnswers(json))
    throw new CliError(
      `the answer file ${file} must be an array of strings or an object of question -> answer strings`,
      EXIT.cancelledOrUsage,
    );
  return json;
}
