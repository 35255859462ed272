import { eventually } from '@svc/test-kit';
import { randomBytes } from 'node:crypto';
import { startTestServer, type TestServer } from '../../support/server';
import { createProject, createWorkflow } from '../../support/fixtures';
import { multipartBody, rawRequest, startUpload } from '../../support/raw-http';
import { startBackend, PROVIDERS_AND_BACKENDS, type BackendName, type BackendUnderTest } from './backends';

const KIB = 1024;
const MIB = 1024 * KIB;
/** Larger than an S3 multipart part (5 MiB): on S3, the big uploads here go out as several parts. */
const LIMIT = 12 * MIB;
const MULTIPART = 6 * MIB;

describe.each(PROVIDERS_AND_BACKENDS)(
  'streamed uploads on %s with %s storage',
  (provider, backendName: BackendName) => {
    let backend: BackendUnderTest;
    let server: TestServer;
    let alice: string;
    let storage: string;
    let storageKeys: string;
    let files: string;
    let workspaceKeys: string;

    beforeAll(async () => {
      backend = await startBackend(backendName);
      server = await startTestServer(provider, { ...backend.env, STORAGE_MAX_UPLOAD_BYTES: String(LIMIT) });
      alice = await server.login('alice');
      const project = await createProject(server, alice);
      const workflow = await createWorkflow(server, alice, project.id);
      storage = `/svc/api/projects/${project.id}/storage`;
      storageKeys = `storage/${project.id}/`;
      files = `/svc/api/workflows/${workflow.id}/files`;
      workspaceKeys = `workspaces/${project.id}/${workflow.id}/`;
    });
    afterAll(async () => {
      await server?.close();
      await backend?.close();
    });

    const putObject = (path: string, body: Buffer) =>
      rawRequest(server.url, `${storage}/${path}`, { method: 'PUT', as: alice, body });
    /** What the backend holds below `prefix`, and whether anything is left staged (S3's `uploads/`). */
    const held = async (prefix: string) => {
      const all = await backend.files(server.dataDir);
      return {
        files: all.filter((f) => f.startsWith(prefix)).map((f) => f.slice(prefix.length)),
        staged: all.filter((f) => f.startsWith('uploads/')),
      };
    };
    const read = async (path: string) => backend.read(server.dataDir, `${storageKeys}${path}`);

    it('accepts an upload of exactly the limit', async () => {
      const body = randomBytes(LIMIT);
      expect((await putObject('up/full.bin', body)).status).toBe(201);
      expect((await read('up/full.bin'))?.equals(body)).toBe(true);
    });

    it('refuses a declared Content-Length over the limit before reading the body', async () => {
      const upload = startUpload(server.url, `${storage}/up/declared.bin`, {
        as: alice,
        headers: { 'content-length': String(LIMIT + 1) },
      });
      const res = await upload.response; // answered with no body bytes sent at all
      expect([res.status, res.json().error.code]).toEqual([413, 'payload_too_large']);
      upload.abort();
      expect(await held(storageKeys)).toEqual({ files: ['up/full.bin'], staged: [] });
    });

    it('counts a chunked body while streaming and leaves the old object and nothing staged behind', async () => {
      const old = randomBytes(10 * KIB);
      await putObject('up/kept.bin', old);
      const upload = startUpload(server.url, `${storage}/up/kept.bin`, { as: alice });
      let answered = false;
      // answered or failed: either way sending stops (a failure is reported by the await below)
      upload.response.then(
        () => (answered = true),
        () => (answered = true),
      );
      for (let sent = 0; sent <= LIMIT && !answered; sent += 64 * KIB) await upload.write(randomBytes(64 * KIB));
      const res = await upload.response;
      expect([res.status, res.json().error.code]).toEqual([413, 'payload_too_large']);
      upload.abort();
      expect((await read('up/kept.bin'))?.equals(old)).toBe(true);
      expect(await held(storageKeys)).toEqual({ files: ['up/full.bin', 'up/kept.bin'], staged: [] });
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
      expect(await held(`${workspaceKeys}multi/`)).toEqual({ files: [], staged: [] });
    });

    // s3rver, the test S3 server, copies an object into place inside the file it serves, so two
    // completes of one key can interleave their bytes there; S3 replaces an object whole. On s3rver the
    // object is only checked to be there, with nothing left staged.
    const whole = backendName === 'local' ? 'one whole object' : 'one object (s3rver copies in place)';
    it(`lets concurrent writers to one key leave ${whole} and nothing staged`, async () => {
      const bodies = Array.from({ length: 4 }, () => randomBytes(MULTIPART));
      const results = await Promise.all(bodies.map((body) => putObject('up/contended.bin', body)));
      expect(results.every((r) => r.status === 200 || r.status === 201)).toBe(true);
      const final = await read('up/contended.bin');
      expect(final).toBeInstanceOf(Buffer);
      if (backendName === 'local') expect(bodies.some((body) => final?.equals(body))).toBe(true);
      expect(await held(storageKeys)).toEqual({
        files: ['up/contended.bin', 'up/full.bin', 'up/kept.bin'],
        staged: [],
      });
    });

    it('lets a reader see the old object while an upload is in flight, then the new one', async () => {
      const old = Buffer.from('old version');
      await putObject('up/swap.txt', old);
      const next = randomBytes(MULTIPART + MIB);
      const upload = startUpload(server.url, `${storage}/up/swap.txt`, {
        as: alice,
        headers: { 'content-length': String(next.length) },
      });
      await upload.write(next.subarray(0, MULTIPART));
      await eventually(() => backend.uploadUnderWay(server.dataDir, `${storageKeys}up/swap.txt`));
      const during = await rawRequest(server.url, `${storage}/up/swap.txt`, { as: alice });
      expect(during.body.equals(old)).toBe(true);
      await upload.write(next.subarray(MULTIPART));
      upload.end();
      expect((await upload.response).status).toBe(200);
      const after = await rawRequest(server.url, `${storage}/up/swap.txt`, { as: alice });
      expect(after.body.equals(next)).toBe(true);
    });

    it('leaves nothing when the client aborts mid-upload, and keeps serving', async () => {
      const path = `${storageKeys}up/aborted.bin`;
      const upload = startUpload(server.url, `${storage}/up/aborted.bin`, {
        as: alice,
        headers: { 'content-length': String(MULTIPART + MIB) },
      });
      await upload.write(randomBytes(MULTIPART));
      await eventually(() => backend.uploadUnderWay(server.dataDir, path));
      upload.abort();
      // On disk the temp file goes away. s3rver implements no AbortMultipartUpload, so its parts stay
      // (AWS S3 and MinIO drop them); what counts there is that no object appears.
      if (backend.name === 'local') await eventually(() => !backend.uploadUnderWay(server.dataDir, path));
      expect((await held(storageKeys)).files).not.toContain('up/aborted.bin');
      expect((await rawRequest(server.url, `${storage}/up/swap.txt`, { as: alice })).status).toBe(200);
    });
  },
);
