import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { workspacePathParts } from './paths';
import {
  blobOf,
  NotRegularFileError,
  openWorkspaceFile,
  removeWorkspaceFile,
  SymlinkRefusedError,
  walkWorkspace,
  WorkspaceDir,
  writeWorkspaceFile,
} from './safe-fs';

/** Reads a whole workspace file the way the worker opens one (the file tools read through the handle). */
async function readWorkspaceFile(workspace: string, rel: string): Promise<Buffer> {
  const { handle } = await openWorkspaceFile(workspace, rel);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** A workspace and, beside it, a host directory a command must never reach through a symlink. */
let base: string;
let root: string;
let host: string;
beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), 'svc-safe-fs-'));
  root = path.join(base, 'workspace');
  host = path.join(base, 'host');
  mkdirSync(root);
  mkdirSync(host);
  writeFileSync(path.join(host, 'secret.txt'), 'host secret\n');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const inRoot = (rel: string) => path.join(root, rel);
const walked = async () => {
  const files: Record<string, string> = {};
  for await (const file of walkWorkspace(root, new Set(['node_modules']))) {
    const open = await file.open();
    if (!open) continue;
    files[file.rel] = (await open.handle.readFile()).toString();
    await open.handle.close();
  }
  return files;
};

describe('a symlink at the last component', () => {
  it('is refused for writing and the existing host file is left as it was', async () => {
    symlinkSync(path.join(host, 'secret.txt'), inRoot('report.md'));
    await expect(writeWorkspaceFile(root, 'report.md', 'pwned')).rejects.toThrow(new SymlinkRefusedError('report.md'));
    expect(readFileSync(path.join(host, 'secret.txt'), 'utf8')).toBe('host secret\n');
  });

  it('is refused for reading, with the message the agent sees', async () => {
    symlinkSync(path.join(host, 'secret.txt'), inRoot('notes.txt'));
    await expect(readWorkspaceFile(root, 'notes.txt')).rejects.toThrow(
      'notes.txt is a symbolic link; refusing to follow it',
    );
  });

  it('when dangling, is refused and its target never created', async () => {
    symlinkSync(path.join(host, 'made-by-agent.txt'), inRoot('a.txt'));
    await expect(writeWorkspaceFile(root, 'a.txt', 'x')).rejects.toThrow(SymlinkRefusedError);
    expect(existsSync(path.join(host, 'made-by-agent.txt'))).toBe(false);
  });

  it('is replaced, never followed, when the caller owns the path (report, pull)', async () => {
    symlinkSync(path.join(host, 'secret.txt'), inRoot('report.md'));
    const replaced: string[] = [];
    await writeWorkspaceFile(root, 'report.md', '# Report\n', (link) => replaced.push(link));
    expect(replaced).toEqual(['report.md']);
    expect(lstatSync(inRoot('report.md')).isFile()).toBe(true);
    expect(readFileSync(inRoot('report.md'), 'utf8')).toBe('# Report\n');
    expect(readFileSync(path.join(host, 'secret.txt'), 'utf8')).toBe('host secret\n');
  });
});

describe('a symlink at a middle component', () => {
  beforeEach(() => {
    mkdirSync(inRoot('src'));
    symlinkSync(host, inRoot('src/out'));
  });

  it('is refused for writing, reading and removing, naming the link', async () => {
    await expect(writeWorkspaceFile(root, 'src/out/pwned.txt', 'x')).rejects.toThrow(
      'src/out is a symbolic link; refusing to follow it',
    );
    await expect(writeWorkspaceFile(root, 'src/out/new/deeper.txt', 'x')).rejects.toThrow(SymlinkRefusedError);
    await expect(readWorkspaceFile(root, 'src/out/secret.txt')).rejects.toThrow(SymlinkRefusedError);
    await expect(removeWorkspaceFile(root, 'src/out/secret.txt')).rejects.toThrow(SymlinkRefusedError);
    expect(existsSync(path.join(host, 'pwned.txt'))).toBe(false);
    expect(existsSync(path.join(host, 'new'))).toBe(false);
    expect(readFileSync(path.join(host, 'secret.txt'), 'utf8')).toBe('host secret\n');
  });

  it('to a directory outside, is neither listed nor walked into', async () => {
    writeFileSync(inRoot('src/app.ts'), 'app');
    expect(await walked()).toEqual({ 'src/app.ts': 'app' });
  });

  it('is replaced by a real directory when the caller owns the path', async () => {
    const replaced: string[] = [];
    await writeWorkspaceFile(root, 'src/out/file.txt', 'mine', (link) => replaced.push(link));
    expect(replaced).toEqual(['src/out']);
    expect(lstatSync(inRoot('src/out')).isDirectory()).toBe(true);
    expect(readFileSync(inRoot('src/out/file.txt'), 'utf8')).toBe('mine');
    expect(existsSync(path.join(host, 'file.txt'))).toBe(false);
  });
});

describe('a directory swapped for a symlink after it was opened', () => {
  /** What a background command does between two of the worker's steps: `mv dir away; ln -s <host> dir`. */
  const swapForLink = (rel: string) => {
    renameSync(inRoot(rel), inRoot(`${rel}-moved`));
    symlinkSync(host, inRoot(rel));
  };

  it('keeps a write in the directory opened, never in the link target', async () => {
    mkdirSync(inRoot('src'));
    const workspace = await WorkspaceDir.openRoot(root);
    const src = await workspace.openDir('src');
    swapForLink('src');
    await src.writeFile('secret.txt', 'written');
    await src.close();
    await workspace.close();
    expect(readFileSync(path.join(host, 'secret.txt'), 'utf8')).toBe('host secret\n');
    expect(readFileSync(inRoot('src-moved/secret.txt'), 'utf8')).toBe('written');
  });

  it('during a walk, reads the files of the directory listed, not of the link target', async () => {
    mkdirSync(inRoot('src'));
    writeFileSync(inRoot('src/a.txt'), 'a');
    writeFileSync(inRoot('src/secret.txt'), 'workspace copy');
    const seen: Record<string, string | null> = {};
    for await (const file of walkWorkspace(root, new Set())) {
      if (file.rel === 'src/a.txt') swapForLink('src');
      const open = await file.open();
      seen[file.rel] = open ? (await open.handle.readFile()).toString() : null;
      await open?.handle.close();
    }
    expect(seen).toEqual({ 'src/a.txt': 'a', 'src/secret.txt': 'workspace copy' });
  });

  it('is refused on the next walk from the workspace root', async () => {
    mkdirSync(inRoot('src'));
    swapForLink('src');
    await expect(writeWorkspaceFile(root, 'src/secret.txt', 'x')).rejects.toThrow(SymlinkRefusedError);
    expect(readFileSync(path.join(host, 'secret.txt'), 'utf8')).toBe('host secret\n');
  });

  it('uploads from the file opened, not from a symlink swapped in afterwards', async () => {
    writeFileSync(inRoot('data.txt'), 'workspace data');
    const file = await openWorkspaceFile(root, 'data.txt');
    try {
      renameSync(inRoot('data.txt'), inRoot('data-moved.txt'));
      symlinkSync(path.join(host, 'secret.txt'), inRoot('data.txt'));
      expect(await (await blobOf(file)).text()).toBe('workspace data');
    } finally {
      await file.handle.close();
    }
  });
});

describe('files that are not regular', () => {
  it('refuses a directory or a FIFO without blocking on it', async () => {
    mkdirSync(inRoot('dir'));
    execFileSync('mkfifo', [inRoot('pipe')]);
    await expect(readWorkspaceFile(root, 'dir')).rejects.toThrow(new NotRegularFileError('dir'));
    await expect(readWorkspaceFile(root, 'pipe')).rejects.toThrow(NotRegularFileError);
    await expect(writeWorkspaceFile(root, 'pipe', 'x')).rejects.toThrow(NotRegularFileError);
    await expect(writeWorkspaceFile(root, 'dir', 'x')).rejects.toThrow(NotRegularFileError);
    expect(await walked()).toEqual({});
  });
});

describe('regular use', () => {
  it('writes, reads, walks and removes files in nested directories', async () => {
    await writeWorkspaceFile(root, 'src/deep/app.ts', 'export {}\n');
    await writeWorkspaceFile(root, 'src/deep/app.ts', 'v2');
    await writeWorkspaceFile(root, 'node_modules/x/index.js', 'skipped');
    await writeWorkspaceFile(root, './README.md', '# Hi');
    expect((await readWorkspaceFile(root, 'src/x/../deep/app.ts')).toString()).toBe('v2');
    expect(await walked()).toEqual({ 'README.md': '# Hi', 'src/deep/app.ts': 'v2' });
    await removeWorkspaceFile(root, 'README.md');
    await removeWorkspaceFile(root, 'never-there.txt');
    expect(existsSync(inRoot('README.md'))).toBe(false);
  });

  it('keeps refusing absolute paths, `..` escapes and NUL bytes', () => {
    expect(() => workspacePathParts('../escape.txt')).toThrow('leaves the workspace');
    expect(() => workspacePathParts('src/../../escape.txt')).toThrow('leaves the workspace');
    expect(() => workspacePathParts('/etc/passwd')).toThrow('must be relative to the workspace');
    expect(() => workspacePathParts('a\0b')).toThrow('NUL byte');
    expect(() => workspacePathParts('src/..')).toThrow('names no file of the workspace');
    expect(workspacePathParts('src\\deep/./app.ts')).toEqual(['src', 'deep', 'app.ts']);
  });
});
