import * as fs from 'node:fs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import git from 'isomorphic-git';
import { readRequires, readSecretNames } from './template-git';

/** A commit of a real git repository holding the given top-level files. */
async function commitWith(dir: string, files: Record<string, string>): Promise<string> {
  await git.init({ fs, dir });
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(path.join(dir, name), text);
    await git.add({ fs, dir, filepath: name });
  }
  return git.commit({ fs, dir, message: 'template', author: { name: 't', email: 't@example.com' } });
}

describe('the .svc-requires and .svc-secrets files of a template branch', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'svc-template-requires-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads labels separated by spaces, commas and lines, skipping comments and leaving out bad ones', async () => {
    const oid = await commitWith(dir, {
      'README.md': '# GPU template\n',
      '.svc-requires': `# what runs of this template need\ngpu, linux\n  cuda gpu\n${'x'.repeat(101)}\n`,
    });
    expect(await readRequires(dir, oid)).toEqual({ labels: ['gpu', 'linux', 'cuda'], refused: ['x'.repeat(101)] });
  });

  it('is none without the files', async () => {
    const oid = await commitWith(dir, { 'README.md': '# Plain\n' });
    expect(await readRequires(dir, oid)).toEqual({ labels: [], refused: [] });
    expect(await readSecretNames(dir, oid)).toEqual([]);
  });

  it('names instance secrets in .svc-secrets, leaving out what is not a secret name', async () => {
    const oid = await commitWith(dir, {
      '.svc-secrets': '# deploy credentials\nDEPLOY_TOKEN, NPM_TOKEN\n9bad SVC_JWT\n',
    });
    expect(await readSecretNames(dir, oid)).toEqual(['DEPLOY_TOKEN', 'NPM_TOKEN']);
  });
});
