import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync } from 'node:fs';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../../support/server';
import { createProject } from '../../support/fixtures';
import { projectStorageDir } from '../../../src/services/workspace-paths';
import { rawRequest } from '../../support/raw-http';

// A real full disk: the project's storage root is a 256 KiB tmpfs (mounting needs root, as on CI here).
describe.each(TEST_PROVIDERS)('a full disk during an upload on %s', (provider) => {
  let server: TestServer;
  let alice: string;
  let storage: string;
  let root: string;
  let mounted = false;

  beforeAll(async () => {
    server = await startTestServer(provider);
    alice = await server.login('alice');
    const projectId = (await createProject(server, alice)).id;
    storage = `/svc/api/projects/${projectId}/storage`;
    root = projectStorageDir(server.dataDir, projectId);
    mkdirSync(root, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'svc-disk-full-test', root]);
    mounted = true;
  });
  afterAll(async () => {
    if (mounted) execFileSync('umount', [root]);
    await server?.close();
  });

  it('answers 503 unavailable, leaves nothing behind and keeps serving', async () => {
    const res = await rawRequest(server.url, `${storage}/big.bin`, {
      method: 'PUT',
      as: alice,
      body: randomBytes(1024 * 1024),
    });
    expect([res.status, res.json().error.code]).toEqual([503, 'unavailable']);
    expect(readdirSync(root)).toEqual([]);
    const small = await rawRequest(server.url, `${storage}/small.txt`, { method: 'PUT', as: alice, body: 'fits' });
    expect(small.status).toBe(201);
    expect(readdirSync(root)).toEqual(['small.txt']);
  });
});
