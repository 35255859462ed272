import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A local copy of a template repository as the server keeps it (a clone with `origin/<branch>` refs),
 * one branch per entry whose README's first line is the template's description. The server is given
 * an unreachable repository URL, so it serves this copy as it is.
 */
export function templateClone(root: string, branches: Record<string, string>): string {
  const env = {
    PATH: process.env.PATH,
    HOME: root,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Templates',
    GIT_AUTHOR_EMAIL: 'templates@example.test',
    GIT_COMMITTER_NAME: 'Templates',
    GIT_COMMITTER_EMAIL: 'templates@example.test',
  };
  const source = join(root, 'source');
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env, stdio: 'pipe' });
  mkdirSync(source, { recursive: true });
  git(source, 'init', '--quiet', '--initial-branch=main');
  for (const [branch, readme] of Object.entries(branches)) {
    git(source, 'checkout', '--quiet', '--orphan', branch);
    git(source, 'rm', '-rf', '--quiet', '--ignore-unmatch', '.');
    writeFileSync(join(source, 'README.md'), readme);
    git(source, 'add', 'README.md');
    git(source, 'commit', '--quiet', '-m', `template ${branch}`);
  }
  const local = join(root, 'local', 'templates');
  mkdirSync(join(root, 'local'), { recursive: true });
  git(root, 'clone', '--quiet', '--no-checkout', source, local);
  return local;
}
