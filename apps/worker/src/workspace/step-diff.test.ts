import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { StepDiffUpdateDataSchema } from '@svc/protocol';
import { captureWorkspace, computeStepDiff, type WorkspaceCapture } from './step-diff';

/** A capture of text files, each fingerprinted by its text. */
const textCapture = (files: Record<string, string | null>): WorkspaceCapture =>
  new Map(
    Object.entries(files).map(([file, text]) => [file, { sha256: `${file}:${text ?? 'large'}`, text, binary: false }]),
  );

describe('step diffs', () => {
  let root: string;
  const write = (file: string, content: string | Buffer) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), content);
  };
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'svc-step-diff-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('lists added, modified and deleted files with line counts and a unified diff', async () => {
    write('src/app.js', 'const a = 1;\nconst b = 2;\n');
    write('old.txt', 'bye\n');
    write('same.txt', 'unchanged\n');
    write('logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
    const before = await captureWorkspace(root);
    write('src/app.js', 'const a = 1;\nconst b = 3;\nconst c = 4;\n');
    unlinkSync(path.join(root, 'old.txt'));
    write('index.html', '<h1>Hi</h1>\n');
    write('logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 9, 9]));
    write('node_modules/x/index.js', 'ignored\n');
    write('.git/HEAD', 'ignored\n');
    const diff = computeStepDiff(3, before, await captureWorkspace(root), 262_144);
    expect(StepDiffUpdateDataSchema.parse(diff)).toEqual(diff);
    expect(diff.step_index).toBe(3);
    expect(diff.truncated).toBe(false);
    expect(diff.files).toEqual([
      { path: 'index.html', status: 'added', additions: 1, deletions: 0, binary: false },
      { path: 'logo.png', status: 'modified', additions: 0, deletions: 0, binary: true },
      { path: 'old.txt', status: 'deleted', additions: 0, deletions: 1, binary: false },
      { path: 'src/app.js', status: 'modified', additions: 2, deletions: 1, binary: false },
    ]);
    expect(diff.patch).toContain('--- /dev/null\n+++ b/index.html\n@@ -0,0 +1,1 @@\n+<h1>Hi</h1>\n');
    expect(diff.patch).toContain('Binary files a/logo.png and b/logo.png differ\n');
    expect(diff.patch).toContain('--- a/old.txt\n+++ /dev/null\n');
    expect(diff.patch).toContain(' const a = 1;\n-const b = 2;\n+const b = 3;\n+const c = 4;\n');
    expect(diff.patch).not.toContain('node_modules');
    expect(diff.patch).not.toContain('===');
  });

  it('stops the patch at a file boundary at the bound, keeping every file listed', async () => {
    const before = await captureWorkspace(root);
    for (let i = 0; i < 5; i++) write(`f${i}.txt`, `${'line\n'.repeat(100)}`);
    const diff = computeStepDiff(0, before, await captureWorkspace(root), 1200);
    expect(diff.truncated).toBe(true);
    expect(diff.files).toHaveLength(5);
    expect(Buffer.byteLength(diff.patch)).toBeLessThanOrEqual(1200);
    expect(diff.patch.endsWith('+line\n')).toBe(true);
    expect(diff.patch).toContain('+++ b/f0.txt');
    expect(diff.patch).not.toContain('+++ b/f4.txt');
  });

  it("takes no later patch once one did not fit, still counting every file's lines", () => {
    const before = textCapture({});
    const after = textCapture({ 'a.txt': 'line\n'.repeat(50), 'b.txt': 'x\n' });
    const diff = computeStepDiff(0, before, after, 100);
    expect(diff).toMatchObject({ patch: '', truncated: true });
    expect(diff.files.map((f) => [f.path, f.additions])).toEqual([
      ['a.txt', 50],
      ['b.txt', 1],
    ]);
  });

  it('lists a file too large to diff without its lines', () => {
    const diff = computeStepDiff(0, textCapture({ 'big.log': null }), textCapture({ 'big.log': 'now small\n' }), 1000);
    expect(diff.files).toEqual([{ path: 'big.log', status: 'modified', additions: 0, deletions: 0, binary: false }]);
    expect(diff.patch).toBe('Files a/big.log and b/big.log differ (too large to show)\n');
    expect(diff.truncated).toBe(false);
  });

  it('lists 1000 files at most, and says the diff is truncated', () => {
    const after = textCapture(Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`f${1000 + i}.txt`, 'x\n'])));
    const diff = computeStepDiff(0, textCapture({}), after, 10_000_000);
    expect(diff.files).toHaveLength(1000);
    expect(diff.files.at(-1)?.path).toBe('f1999.txt');
    expect(diff.truncated).toBe(true);
    const exactly = computeStepDiff(
      0,
      textCapture({}),
      textCapture(Object.fromEntries([...after].slice(0, 1000).map(([f]) => [f, 'x\n']))),
      10_000_000,
    );
    expect(exactly.truncated).toBe(false);
  });

  it('is empty when nothing changed', async () => {
    write('a.txt', 'a\n');
    const capture = await captureWorkspace(root);
    expect(computeStepDiff(1, capture, await captureWorkspace(root), 1000)).toEqual({
      step_index: 1,
      files: [],
      patch: '',
      truncated: false,
    });
  });
});
