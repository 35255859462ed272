import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { FileAnswers, LineAnswers } from './answers';
import { parseTtl, tokenClaims } from './commands/auth';
import { ProgressBar } from './progress';
import { CliError, EXIT } from './errors';
import { CLI_VERSION } from './version';

describe('small parts', () => {
  it('parses token lifetimes', () => {
    expect(parseTtl('3600')).toBe(3600);
    expect(parseTtl('90m')).toBe(5400);
    expect(parseTtl('12h')).toBe(43_200);
    expect(parseTtl('30d')).toBe(2_592_000);
    expect(parseTtl('2w')).toBe(1_209_600);
    expect(() => parseTtl('soon')).toThrow(/--ttl/);
  });

  it('reads the claims of a token without verifying it', () => {
    const payload = Buffer.from(JSON.stringify({ scope: 'api', jti: 'j' })).toString('base64url');
    expect(tokenClaims(`h.${payload}.s`)).toEqual({ scope: 'api', jti: 'j' });
    expect(tokenClaims('garbage')).toBeNull();
  });

  it('answer files: by question, in order, or one text for all', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-cli-answers-'));
    const write = (name: string, text: string) => {
      writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    };
    const byQuestion = FileAnswers.load(write('a.json', '{"Colour?": "teal", "*": "yes"}'));
    expect(await byQuestion.answer('Colour?')).toBe('teal');
    expect(await byQuestion.answer('Anything else?')).toBe('yes');
    const inOrder = FileAnswers.load(write('b.json', '["one", "two"]'));
    expect([await inOrder.answer('a'), await inOrder.answer('b'), await inOrder.answer('c')]).toEqual([
      'one',
      'two',
      null,
    ]);
    const text = FileAnswers.load(write('c.txt', 'multi\nline\n'));
    expect(await text.answer('q')).toBe('multi\nline');
    expect(() => FileAnswers.load(write('d.json', '{"q": 1}'))).toThrow(/strings/);
  });

  it('answer files: refused with what is wrong', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-cli-answers-'));
    const write = (name: string, text: string) => {
      writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    };
    const refusal = (file: string) => {
      try {
        FileAnswers.load(file);
      } catch (error) {
        return [(error as CliError).message.replace(dir, '<dir>'), (error as CliError).exitCode];
      }
      return 'loaded';
    };
    const usage = EXIT.cancelledOrUsage;
    expect(refusal(path.join(dir, 'absent.json'))).toEqual([
      expect.stringMatching(/^cannot read the answer file <dir>\/absent.json: ENOENT/),
      usage,
    ]);
    expect(refusal(write('bad.json', ' {"q": '))).toEqual([
      expect.stringMatching(/^the answer file <dir>\/bad.json is not valid JSON: /),
      usage,
    ]);
    const shape = 'must be an array of strings or an object of question -> answer strings';
    expect(refusal(write('numbers.json', '["a", 2]'))).toEqual([`the answer file <dir>/numbers.json ${shape}`, usage]);
    expect(refusal(write('nested.json', '{"q": {"a": "b"}}'))).toEqual([
      `the answer file <dir>/nested.json ${shape}`,
      usage,
    ]);
    expect(refusal(write('blank.txt', ' \n\n'))).toEqual(['the answer file <dir>/blank.txt is empty', usage]);
    expect(refusal(write('null.txt', 'null'))).toBe('loaded');
  });

  it('answer files: JSON after blank space, and a text keeps all but its last line break', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-cli-answers-'));
    writeFileSync(path.join(dir, 'a.json'), '\n  ["one"]\n');
    expect(await FileAnswers.load(path.join(dir, 'a.json')).answer('q')).toBe('one');
    writeFileSync(path.join(dir, 'b.txt'), 'yes\r\n\r\n');
    expect(await FileAnswers.load(path.join(dir, 'b.txt')).answer('q')).toBe('yes\r\n');
  });

  it('line answers: one line per question, prompts written when asked, null at the end of input', async () => {
    const input = new PassThrough();
    const prompt = new PassThrough();
    const answers = new LineAnswers(input, prompt);
    input.write('first\n\nsecond\n');
    expect(await answers.answer('Q1')).toBe('first');
    expect(await answers.answer('Q2')).toBe('second'); // the blank line is skipped
    const third = answers.answer('Q3');
    input.end();
    expect(await third).toBeNull();
    expect(String(prompt.read())).toContain('? Q1');
    answers.close();
  });

  it('draws a progress bar', () => {
    const out = new PassThrough();
    const bar = new ProgressBar(out, 'big.bin', 4 * 1024 * 1024, 10, () => 0);
    bar.add(1024 * 1024);
    expect(bar.line()).toBe('big.bin [###-------]  25% 1.0 MiB / 4.0 MiB');
    expect(new ProgressBar(out, 'stream', null).line()).toBe('stream 0 B');
  });

  it('knows its version (the one package.json names the tarball with)', () => {
    const manifest = JSON.parse(readFileSync(path.join(__dirname, '../package.json'), 'utf8')) as { version: string };
    expect(CLI_VERSION).toBe(manifest.version);
  });
});
