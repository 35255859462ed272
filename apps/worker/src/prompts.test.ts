import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_PROMPTS_DIR, loadPrompts, PROMPT_NAMES, PromptsError } from './prompts';

function promptsCopy(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-prompts-'));
  for (const name of PROMPT_NAMES)
    copyFileSync(path.join(DEFAULT_PROMPTS_DIR, `${name}.md`), path.join(dir, `${name}.md`));
  return dir;
}

describe('loadPrompts', () => {
  it('loads the repository prompts, each starting with its marker line', () => {
    const prompts = loadPrompts();
    for (const name of PROMPT_NAMES) {
      expect(prompts[name].split('\n')[0]).toBe(`# svc:${name}`);
      expect(prompts[name].length).toBeGreaterThan(200);
    }
    expect(DEFAULT_PROMPTS_DIR).toBe(path.resolve(__dirname, '../../../prompts'));
  });

  it('names the missing prompt file', () => {
    const dir = promptsCopy();
    rmSync(path.join(dir, 'revise.md'));
    expect(() => loadPrompts(dir)).toThrow(
      new PromptsError(`prompt "revise" cannot be read from ${path.join(dir, 'revise.md')} (ENOENT)`),
    );
  });

  it('refuses a prompt without its marker line', () => {
    const dir = promptsCopy();
    const file = path.join(dir, 'title.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace('# svc:title', '# svc:planning'));
    expect(() => loadPrompts(dir)).toThrow(`must start with the line "# svc:title"`);
  });
});
