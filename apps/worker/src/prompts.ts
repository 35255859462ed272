import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const PROMPT_NAMES = ['planning', 'execution', 'report', 'title', 'revise'] as const;
export type PromptName = (typeof PROMPT_NAMES)[number];
export type Prompts = Readonly<Record<PromptName, string>>;

export class PromptsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PromptsError';
  }
}

/**
 * `prompts/` next to the running code when it is there (the packaged worker: a single-file bundle
 * with its prompts beside it), else the repository's prompts/ (the same relative position from src/
 * and from dist/).
 */
export const DEFAULT_PROMPTS_DIR =
  [path.join(__dirname, 'prompts')].find((dir) => existsSync(path.join(dir, 'planning.md'))) ??
  path.resolve(__dirname, '../../../prompts');

/**
 * Reads every prompt file `<dir>/<name>.md`. Each must start with its marker line
 * `# svc:<name>` (the scripted test LLM recognises the phase by it), so a file put in the wrong
 * place is caught at start-up rather than mid-workflow.
 */
export function loadPrompts(dir: string = DEFAULT_PROMPTS_DIR): Prompts {
  const entries = PROMPT_NAMES.map((name) => {
    const file = path.join(dir, `${name}.md`);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new PromptsError(`prompt "${name}" cannot be read from ${file}${code ? ` (${code})` : ''}`);
    }
    const marker = `# svc:${name}`;
    if (text.split('\n', 1)[0]?.trim() !== marker) {
      throw new PromptsError(`prompt file ${file} must start with the line "${marker}"`);
    }
    return [name, text.trim()] as const;
  });
  return Object.freeze(Object.fromEntries(entries) as Record<PromptName, string>);
}
