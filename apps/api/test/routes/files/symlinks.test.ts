import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../../support/server';
import { createProject, createWorkflow } from '../../support/fixtures';
import { projectStorageDir, workflowWorkspaceDir } from '../../../src/services/workspace-paths';
import { multipartBody, rawRequest, type RawResponse } from '../../support/raw-http';

const expectInvalidPath = (res: RawResponse) => {
  expect([res.status, res.json().error.code]).toEqual([400, 'invalid_path']);
};

describe.each(TEST_PROVIDERS)('symlinks that lead out of a root on %s', (provider) => {
  let server: TestServer;
  let alice: string;
  let files: string;
  let storage: string;
  let outside: string;
  let workspace: string;

  beforeAll(async () => {
    server = await startTestServer(provider);
    alice = await server.login('alice');
    const project = await createProject(server, alice);
    const workflow = await createWorkflow(server, alice, project.id);
    files = `/svc/api/workflows/${workflow.id}/files`;
    storage = `/svc/api/projects/${project.id}/storage`;
    outside = mkdtempSync(join(tmpdir(), 'svc-outside-'));
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    workspace = workflowWorkspaceDir(server.dataDir, project.id, workflow.id);
    const storageRoot = projectStorageDir(server.dataDir, project.id);
    for (const root of [workspace, storageRoot]) {
      mkdirSync(join(root, 'real'), { recursive: true });
      mkdirSync(join(root, 'deep'), { recursive: true });
      writeFileSync(join(root, 'real', 'file.txt'), 'inside');
      symlinkSync(outside, join(root, 'out')); // a directory link leading out
      symlinkSync(join(outside, 'secret.txt'), join(root, 'leak.txt')); // a file link leading out
      symlinkSync(outside, join(root, 'deep', 'link')); // a link further down a path
      symlinkSync(join(outside, 'missing.txt'), join(root, 'dangling.txt'));
      symlinkSync(join(root, 'real'), join(root, 'inner')); // stays inside: allowed
    }
  });
  afterAll(async () => {
    await server?.close();
    rmSync(outside, { recursive: true, force: true });
  });

  const outsideUntouched = () => {
    expect(readdirSync(outside)).toEqual(['secret.txt']);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('secret');
  };

  it('refuses to read through a file or directory link that leads out', async () => {
    for (const path of ['leak.txt', 'out/secret.txt', 'deep/link/secret.txt', 'out', 'dangling.txt']) {
      expectInvalidPath(await rawRequest(server.url, `${files}/${path}?raw`, { as: alice }));
      expectInvalidPath(await rawRequest(server.url, `${storage}/${path}`, { as: alice }));
    }
    expectInvalidPath(await rawRequest(server.url, `${files}?path=out&recursive=1`, { as: alice }));
    expectInvalidPath(await rawRequest(server.url, `${storage}/deep/link/`, { as: alice }));
  });

  it('refuses to write through a link that leads out, with PUT and multipart', async () => {
    for (const path of ['out/new.txt', 'leak.txt', 'deep/link/sub/new.txt', 'dangling.txt']) {
      expectInvalidPath(await rawRequest(server.url, `${files}/${path}`, { method: 'PUT', as: alice, body: 'pwned' }));
      expectInvalidPath(
        await rawRequest(server.url, `${storage}/${path}`, { method: 'PUT', as: alice, body: 'pwned' }),
      );
    }
    const intoLinkedDir = multipartBody([{ filename: 'new.txt', content: 'pwned' }]);
    expectInvalidPath(
      await rawRequest(server.url, `${files}?path=out`, {
        method: 'POST',
        as: alice,
        body: intoLinkedDir.body,
        headers: { 'content-type': intoLinkedDir.contentType },
      }),
    );
    const namedThroughLink = multipartBody([{ filename: 'deep/link/new.txt', content: 'pwned' }]);
    expectInvalidPath(
      await rawRequest(server.url, `${files}?path=`, {
        method: 'POST',
        as: alice,
        body: namedThroughLink.body,
        headers: { 'content-type': namedThroughLink.contentType },
      }),
    );
    outsideUntouched();
    expect(lstatSync(join(workspace, 'leak.txt')).isSymbolicLink()).toBe(true);
    expect(existsSync(join(outside, 'missing.txt'))).toBe(false);
  });

  it('refuses to delete through a link that leads out', async () => {
    for (const path of ['out/secret.txt', 'deep/link/secret.txt', 'leak.txt']) {
      expectInvalidPath(await rawRequest(server.url, `${files}/${path}`, { method: 'DELETE', as: alice }));
      expectInvalidPath(await rawRequest(server.url, `${storage}/${path}`, { method: 'DELETE', as: alice }));
    }
    outsideUntouched();
  });

  it('follows links that stay inside the root and leaves links out of listings', async () => {
    const res = await rawRequest(server.url, `${files}/inner/file.txt?raw`, { as: alice });
    expect([res.status, res.text()]).toEqual([200, 'inside']);
    const listing = await rawRequest(server.url, `${files}?path=&recursive=1`, { as: alice });
    expect((listing.json() as { path: string }[]).map((e) => e.path)).toEqual(['deep', 'real', 'real/file.txt']);
    const storageListing = await rawRequest(server.url, `${storage}/`, { as: alice });
    expect((storageListing.json() as { path: string }[]).map((e) => e.path)).toEqual(['deep', 'real']);
  });
});
