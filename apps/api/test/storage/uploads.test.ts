import { eventually } from '@svc/test-kit';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { createProject, createWorkflow } from '../resources/fixtures';
import { projectStorageDir, workflowWorkspaceDir } from '../../src/services/workspace-paths';
import { multipartBody, rawRequest, startUpload } from '../files/raw-http';

const LIMIT = 1024 * 1024;
const KIB = 1024;

describe.each(TEST_PROVIDERS)('streamed uploads on %s', (provider) => {
  let server: TestServer;
  let alice: string;
  let storage: string;
  let root: string;
  let files: string;
  let workspace: string;

  beforeAll(async () => {
    server = await startTestServer(provider, { STORAGE_MAX_UPLOAD_BYTES: String(LIMIT) });
    alice = await server.login('alice');
    const project = await createProject(server, alice);
    const workflow = await createWorkflow(server, alice, project.id);
    storage = `/svc/api/projects/${project.id}/storage`;
    root = projectStorageDir(server.dataDir, project.id);
    files = `/svc/api/workflows/${workflow.id}/files`;
    workspace = workflowWorkspaceDir(server.dataDir, project.id, workflow.id);
    mkdirSync(join(root, 'up'), { recursive: true });
  });
  afterAll(async () => server?.close());

  const putObject = (path: string, body: Buffer) =>
    rawRequest(server.url, `${storage}/${path}`, { method: 'PUT', as: alice, body });
  const entries = (dir: string) => readdirSync(dir).sort();

  it('accepts an upload of exactly the limit', async () => {
    expect((await putObject('up/full.bin', randomBytes(LIMIT))).status).toBe(201);
  });

  it('refuses a declared Content-Length over the limit before reading the body', async () => {
    const upload = startUpload(server.url, `${storage}/up/declared.bin`, {
      as: alice,
      headers: { 'content-length': String(LIMIT + 1) },
    });
    const res = await upload.response; // answered with no body bytes sent at all
    expect([res.status, res.json().error.code]).toEqual([413, 'payload_too_large']);
    upload.abort();
    expect(entries(join(root, 'up'))).toEqual(['full.bin']);
  });

  it('counts a chunked body while streaming and leaves the old object and no temp file behind', async () => {
    const old = randomBytes(10 * KIB);
    await putObject('up/kept.bin', old);
    const upload = startUpload(server.url, `${storage}/up/kept.bin`, { as: alice });
    let answered = false;
    void upload.response.then(() => (answered = true));
    for (let sent = 0; sent <= LIMIT && !answered; sent += 64 * KIB) await upload.write(randomBytes(64 * KIB));
    const res = await upload.response;
    expect([res.status, res.json().error.code]).toEqual([413, 'payload_too_large']);
    upload.abort();
    expect(readFileSync(join(root, 'up/kept.bin')).equals(old)).toBe(true);
    expect(entries(join(root, 'up'))).toEqual(['full.bin', 'kept.bin']);
  });

  it('applies the limit to all parts of a multipart upload together, keeping none of them', async () => {
    const { body, contentType } = multipartBody([
      { filename: 'a.bin', content: randomBytes(LIMIT / 2) },
      { filename: 'b.bin', content: randomBytes(LIMIT / 2 + 10) },
    ]);
    // Chunked, so only counting while streaming can catch it.
    const upload = startUpload(server.url, `${files}?path=multi`, {
      method: 'POST',
      as: alice,
      headers: { 'content-type': contentType },
    });
    await upload.write(body).catch(() => undefined);
    upload.end();
    const res = await upload.response;
    expect([res.status, res.json().error.code]).toEqual([413, 'payload_too_large']);
    expect(existsSync(join(workspace, 'multi')) ? entries(join(workspace, 'multi')) : []).toEqual([]);
  });

  it('lets concurrent writers to one key leave exactly one whole object', async () => {
    const bodies = Array.from({ length: 8 }, () => randomBytes(256 * KIB));
    const results = await Promise.all(bodies.map((body) => putObject('up/contended.bin', body)));
    expect(results.every((r) => r.status === 200 || r.status === 201)).toBe(true);
    const final = readFileSync(join(root, 'up/contended.bin'));
    expect(bodies.some((body) => body.equals(final))).toBe(true);
    expect(entries(join(root, 'up'))).toEqual(['contended.bin', 'full.bin', 'kept.bin']);
  });

  it('lets a reader see the old object while an upload is in flight, then the new one', async () => {
    const old = Buffer.from('old version');
    await putObject('up/swap.txt', old);
    const next = randomBytes(512 * KIB);
    const upload = startUpload(server.url, `${storage}/up/swap.txt`, {
      as: alice,
      headers: { 'content-length': String(next.length) },
    });
    await upload.write(next.subarray(0, 256 * KIB));
    const during = await rawRequest(server.url, `${storage}/up/swap.txt`, { as: alice });
    expect(during.body.equals(old)).toBe(true);
    await upload.write(next.subarray(256 * KIB));
    upload.end();
    expect((await upload.response).status).toBe(200);
    const after = await rawRequest(server.url, `${storage}/up/swap.txt`, { as: alice });
    expect(after.body.equals(next)).toBe(true);
  });

  it('removes the partial file when the client aborts mid-upload, and keeps serving', async () => {
    const upload = startUpload(server.url, `${storage}/up/aborted.bin`, {
      as: alice,
      headers: { 'content-length': String(512 * KIB) },
    });
    await upload.write(randomBytes(200 * KIB));
    await eventually(() => readdirSync(join(root, 'up')).some((name) => name.startsWith('.svc-upload-')));
    upload.abort();
    await eventually(() => !readdirSync(join(root, 'up')).some((name) => name.startsWith('.svc-upload-')));
    expect(entries(join(root, 'up'))).not.toContain('aborted.bin');
    expect((await rawRequest(server.url, `${storage}/up/swap.txt`, { as: alice })).status).toBe(200);
  });
});
