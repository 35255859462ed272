import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** A file of a template branch: text, or text with a git mode (`100755` executable, `120000` symlink target). */
export type TemplateFile = string | { content: string; mode: '100644' | '100755' | '120000' };

interface TreeNode {
  files: Map<string, TemplateFile>;
  dirs: Map<string, TreeNode>;
}

/**
 * A bare git repository whose branches are built with plumbing (hash-object, mktree, commit-tree), so
 * a test can also craft trees a normal `git add` would refuse: entries named `..` or `.git`, names
 * with backslashes, symlinks pointing anywhere.
 */
export class TemplateRepoFixture {
  readonly dir: string;
  private readonly env: NodeJS.ProcessEnv;

  constructor(projectRoot: string, name = 'templates.git') {
    this.dir = join(projectRoot, name);
    this.env = {
      PATH: process.env.PATH,
      HOME: projectRoot,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'Template Author',
      GIT_AUTHOR_EMAIL: 'templates@example.test',
      GIT_COMMITTER_NAME: 'Template Author',
      GIT_COMMITTER_EMAIL: 'templates@example.test',
    };
    execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', this.dir], { env: this.env });
  }

  private git(args: string[], input?: string): string {
    return execFileSync('git', args, { cwd: this.dir, env: this.env, input, encoding: 'utf8' }).trim();
  }

  /** Creates or moves `branch` to a new commit holding exactly `files` (paths split on `/`). */
  commitBranch(branch: string, files: Record<string, TemplateFile>, message = `template ${branch}`): string {
    const root: TreeNode = { files: new Map(), dirs: new Map() };
    for (const [path, file] of Object.entries(files)) {
      const parts = path.split('/');
      let node = root;
      for (const dir of parts.slice(0, -1)) {
        if (!node.dirs.has(dir)) node.dirs.set(dir, { files: new Map(), dirs: new Map() });
        node = node.dirs.get(dir)!;
      }
      node.files.set(parts[parts.length - 1]!, file);
    }
    const tree = this.writeTree(root);
    const parent = this.tip(branch);
    const commit = this.git(['commit-tree', tree, '-m', message, ...(parent ? ['-p', parent] : [])]);
    this.git(['update-ref', `refs/heads/${branch}`, commit]);
    return commit;
  }

  private tip(branch: string): string | null {
    try {
      return this.git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]);
    } catch {
      return null; // no such branch yet
    }
  }

  deleteBranch(branch: string): void {
    this.git(['update-ref', '-d', `refs/heads/${branch}`]);
  }

  private writeTree(node: TreeNode): string {
    const lines: string[] = [];
    for (const [name, file] of node.files) {
      const { content, mode } = typeof file === 'string' ? { content: file, mode: '100644' } : file;
      lines.push(`${mode} blob ${this.git(['hash-object', '-w', '--stdin'], content)}\t${name}`);
    }
    for (const [name, child] of node.dirs) lines.push(`040000 tree ${this.writeTree(child)}\t${name}`);
    return this.git(['mktree'], lines.length ? `${lines.join('\n')}\n` : '');
  }
}

/** The branches most template tests use, including one crafted to escape the workspace. */
export const STARTER_BRANCHES = {
  main: { 'README.md': '# Blank starter\n\nNothing here yet.\n', '.gitignore': 'node_modules\n' },
  react: {
    'README.md': '\n## Vite + React starter\nRun it with bin/dev.sh\n',
    'package.json': '{"name": "app"}\n',
    'src/App.tsx': 'export const App = () => null;\n',
    'bin/dev.sh': { content: '#!/bin/sh\nexec vite\n', mode: '100755' as const },
  },
  'feature/docs': { 'readme.txt': 'Documentation site\n', 'docs/index.md': '# Docs\n' },
  evil: {
    'ok.txt': 'fine',
    'sub/ok2.txt': 'fine too',
    '../escaped.txt': 'escaped',
    '.git/config': '[core]\n',
    '.GIT/hooks/post-checkout': '#!/bin/sh\n',
    link: { content: '/etc/passwd', mode: '120000' as const },
    uplink: { content: '..', mode: '120000' as const },
  },
  // git itself stores any name; isomorphic-git refuses to read a tree holding a backslash name.
  'evil-backslash': { 'ok.txt': 'fine', 'nested/a\\..\\..\\b.txt': 'backslashes', 'nested/c.txt': 'same tree' },
};
