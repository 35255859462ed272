import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Timer } from '@svc/protocol';
import { SERVER_SETUP_MS, startToolEnv, type ToolEnv } from '../../../test/support/tool-env';
import { advanceStep } from './advance-step';
import { readFile } from './read-file';
import { saveMemo } from './save-memo';
import { setTimer } from './set-timer';
import { writeFile } from './write-file';

let env: ToolEnv;
let dir: string;
beforeAll(async () => {
  env = await startToolEnv({ config: { tool_output_max_bytes: 1024 } });
  dir = env.workspaceDir;
  mkdirSync(dir, { recursive: true });
}, SERVER_SETUP_MS);
afterAll(() => env?.close());

describe('advance_step', () => {
  it('asks the loop to finish the step with the summary', async () => {
    const { result } = await env.call(advanceStep, { summary: 'Tests pass.' });
    expect(result).toEqual({
      output: 'Step completed.',
      isError: false,
      effect: { kind: 'advance_step', summary: 'Tests pass.' },
    });
    expect((await env.call(advanceStep, {})).result.isError).toBe(true);
  });
});

describe('save_memo', () => {
  it('asks the loop to keep the note', async () => {
    const { result } = await env.call(saveMemo, { note: 'API on port 8080' });
    expect(result.effect).toEqual({ kind: 'save_memo', note: 'API on port 8080' });
    expect((await env.call(saveMemo, { note: '', extra: 1 })).result.output).toMatch(
      /^invalid arguments for save_memo: /,
    );
  });
});

describe('set_timer', () => {
  it('creates a durable timer on the server and asks the loop to pause', async () => {
    const before = Date.now();
    const { result } = await env.call(setTimer, { seconds: 90, reason: 'wait for DNS' });
    const after = Date.now();
    expect(result).toEqual({
      output: 'Timer set: the workflow resumes in 90s.',
      isError: false,
      effect: { kind: 'set_timer', seconds: 90, reason: 'wait for DNS' },
    });
    const timers = await env.server.alice.json<Timer[]>(`/workflows/${env.workflowId}/timers`);
    expect(timers).toEqual([
      expect.objectContaining({ workflow_id: env.workflowId, reason: 'wait for DNS', status: 'pending' }),
    ]);
    const [timer] = timers;
    // set for 90 s after the request
    expect(Date.parse(timer!.fire_at)).toBeGreaterThanOrEqual(before + 90_000 - 1);
    expect(Date.parse(timer!.fire_at)).toBeLessThanOrEqual(after + 90_000 + 1);
    // the timer is not left to fire on the held workflow
    await env.server.alice.fetch(`/timers/${timer!.id}`, { method: 'DELETE' });
    expect((await env.call(setTimer, { seconds: 0, reason: 'x' })).result.isError).toBe(true);
  });
});

describe('write_file', () => {
  it('writes a file, creating parent directories', async () => {
    const { result } = await env.call(writeFile, { path: 'src/deep/app.ts', content: 'export const ü = 1;\n' });
    expect(result).toEqual({ output: 'Wrote 21 bytes to src/deep/app.ts.', isError: false });
    expect(readFileSync(path.join(dir, 'src/deep/app.ts'), 'utf8')).toBe('export const ü = 1;\n');
  });

  it('refuses paths outside the workspace, also through a symlink', async () => {
    expect((await env.call(writeFile, { path: '../escape.txt', content: 'x' })).result).toEqual({
      output: 'write_file failed: path "../escape.txt" leaves the workspace',
      isError: true,
    });
    expect((await env.call(writeFile, { path: '/etc/passwd', content: 'x' })).result.output).toContain(
      'must be relative to the workspace',
    );
    symlinkSync(tmpdir(), path.join(dir, 'outside-link'));
    expect((await env.call(writeFile, { path: 'outside-link/pwned.txt', content: 'x' })).result.output).toContain(
      'outside-link is a symbolic link; refusing to follow it',
    );
  });
});

describe('read_file', () => {
  it('reads a small file whole', async () => {
    writeFileSync(path.join(dir, 'notes.md'), '# Notes\nhello');
    expect((await env.call(readFile, { path: 'notes.md' })).result).toEqual({
      output: '# Notes\nhello',
      isError: false,
    });
  });

  it('reads a large file in pages within the output budget', async () => {
    writeFileSync(path.join(dir, 'big.txt'), 'a'.repeat(1024) + 'b'.repeat(500));
    const first = (await env.call(readFile, { path: 'big.txt' })).result.output;
    expect(first).toBe(`[bytes 0-1024 of 1524; continue with offset 1024]\n${'a'.repeat(1024)}`);
    const second = (await env.call(readFile, { path: 'big.txt', offset: 1024 })).result.output;
    expect(second).toBe(`[bytes 1024-1524 of 1524; continue with offset 1524]\n${'b'.repeat(500)}`);
  });

  it('explains missing files, directories and escapes', async () => {
    expect((await env.call(readFile, { path: 'nope.txt' })).result).toEqual({
      output: 'nope.txt does not exist',
      isError: true,
    });
    expect((await env.call(readFile, { path: 'src' })).result.output).toBe('src is not a file');
    expect((await env.call(readFile, { path: '../../etc/passwd' })).result.isError).toBe(true);
  });
});
