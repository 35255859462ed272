import { eventually } from '@svc/test-kit';
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../support/server';
import { addMember, captureEvents, createProject, createWorkflow } from '../../support/fixtures';
import {
  startBackend,
  PROVIDERS_AND_BACKENDS,
  type BackendName,
  type BackendUnderTest,
} from '../../services/storage/backends';
import { multipartBody, rawRequest } from '../../support/raw-http';

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

describe.each(PROVIDERS_AND_BACKENDS)('workspace files on %s with %s storage', (provider, backendName: BackendName) => {
  let backend: BackendUnderTest;
  let server: TestServer;
  let alice: string;
  let workflow: { id: string; project_id: string };
  let files: string;
  let workspace: string;
  /** every file the backend holds for this workspace (upload temporaries included, were there any) */
  const stored = async () =>
    (await backend.files(server.dataDir)).filter((f) => f.startsWith(workspace)).map((f) => f.slice(workspace.length));
  const content = async (path: string) => (await backend.read(server.dataDir, workspace + path))?.toString('utf8');

  beforeAll(async () => {
    backend = await startBackend(backendName);
    server = await startTestServer(provider, backend.env);
    alice = await server.login('alice');
    const project = await createProject(server, alice);
    workflow = await createWorkflow(server, alice, project.id);
    files = `/svc/api/workflows/${workflow.id}/files`;
    workspace = `workspaces/${workflow.project_id}/${workflow.id}/`;
  });
  afterAll(async () => {
    await server?.close();
    await backend?.close();
  });

  const put = (path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
    rawRequest(server.url, `${files}/${path}`, {
      method: 'PUT',
      as: alice,
      body,
      headers: { 'content-type': 'application/octet-stream', ...headers },
    });

  it('creates a file with its parent directories, replaces it, and reports size and sha256', async () => {
    const created = await put('src/app/main.ts', 'console.log(1);\n');
    expect(created.status).toBe(201);
    expect(created.json()).toEqual({ path: 'src/app/main.ts', size: 16, sha256: sha256('console.log(1);\n') });
    const replaced = await put('src/app/main.ts', 'console.log(2);\n');
    expect(replaced.status).toBe(200);
    expect(await content('src/app/main.ts')).toBe('console.log(2);\n');
    expect(await stored()).toEqual(['src/app/main.ts']); // no temp file left beside it
  });

  it('streams a PUT sent as application/json verbatim instead of parsing it', async () => {
    const big = `{"not": "parsed", "pad": "${'x'.repeat(1_500_000)}"`; // invalid JSON, over the 1 MB JSON limit
    const res = await put('data/raw.json', big, { 'content-type': 'application/json' });
    expect(res.status).toBe(201);
    expect(await content('data/raw.json')).toBe(big);
  });

  it('lists a directory, recursively for workers, with sizes and times', async () => {
    await put('README.md', '# Hello\n');
    const top = await server.request(`${files}?path=`, { as: alice });
    const entries = (await top.json()) as {
      name: string;
      path: string;
      type: string;
      size: number;
      modified_at: string;
    }[];
    expect(entries.map((e) => [e.path, e.type])).toEqual([
      ['README.md', 'file'],
      ['data', 'dir'],
      ['src', 'dir'],
    ]);
    expect(entries[0]).toMatchObject({ name: 'README.md', size: 8 });
    expect(new Date(entries[0]!.modified_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
    const all = (await (await server.request(`${files}?path=&recursive=1`, { as: alice })).json()) as {
      path: string;
    }[];
    expect(all.map((e) => e.path)).toEqual(['README.md', 'data', 'data/raw.json', 'src', 'src/app', 'src/app/main.ts']);
    const sub = (await (await server.request(`${files}?path=src%2Fapp`, { as: alice })).json()) as { path: string }[];
    expect(sub.map((e) => e.path)).toEqual(['src/app/main.ts']);
    expect((await server.request(`${files}?path=nope`, { as: alice })).status).toBe(404);
  });

  it('renders markdown as HTML with raw HTML escaped, and serves it as plain text with ?raw', async () => {
    await put('notes/page.md', '# Title\n\n<script>alert(1)</script>\n\n*em*\n');
    const html = await server.request(`${files}/notes/page.md`, { as: alice });
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const page = await html.text();
    expect(page).toContain('<h1>Title</h1>');
    expect(page).toContain('<em>em</em>');
    expect(page).not.toContain('<script>');
    expect(page).toContain('&lt;script&gt;');
    const raw = await server.request(`${files}/notes/page.md?raw`, { as: alice });
    expect(raw.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await raw.text()).toBe('# Title\n\n<script>alert(1)</script>\n\n*em*\n');
  });

  it('serves user content sandboxed, typed by extension and never as an attachment', async () => {
    await put('site/index.html', '<!doctype html><p>built app</p>');
    await put('site/.env', 'SECRET=1');
    const res = await server.request(`${files}/site/index.html`, { as: alice });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toMatch(/^sandbox\b/);
    expect(res.headers.get('content-security-policy')).not.toMatch(/allow-same-origin/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-disposition')).toBeNull();
    const dotfile = await server.request(`${files}/site/.env`, { as: alice });
    expect(dotfile.status).toBe(200);
    expect(await dotfile.text()).toBe('SECRET=1');
    const binary = await server.request(`${files}/data/raw.json`, { as: alice });
    expect(binary.headers.get('content-type')).toBe('application/json; charset=utf-8');
    await binary.arrayBuffer();
  });

  it('answers HEAD, conditional GET and ranges', async () => {
    await put('range.txt', '0123456789');
    const head = await server.request(`${files}/range.txt`, { as: alice, method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('10');
    const etag = head.headers.get('etag')!;
    expect(etag).toBeTruthy();
    // fetch would add `cache-control: no-cache` to a conditional request, so this one goes raw.
    expect(
      (await rawRequest(server.url, `${files}/range.txt`, { as: alice, headers: { 'if-none-match': etag } })).status,
    ).toBe(304);
    const part = await server.request(`${files}/range.txt`, { as: alice, headers: { range: 'bytes=2-4' } });
    expect(part.status).toBe(206);
    expect(await part.text()).toBe('234');
  });

  it('keeps unusual but safe names intact', async () => {
    const names = ['with space.txt', 'hash#mark.txt', 'per%cent.txt', 'ünï/文件.txt', 'a..b.txt', "quote'.txt"];
    for (const name of names) {
      const encoded = name.split('/').map(encodeURIComponent).join('/');
      expect((await put(encoded, name)).status).toBe(201);
      const back = await server.request(`${files}/${encoded}?raw`, { as: alice });
      expect(await back.text()).toBe(name);
      expect(await stored()).toContain(name);
    }
  });

  it('accepts multipart uploads into a directory, publishing file_changed for each file', async () => {
    const capture = captureEvents(server);
    const { body, contentType } = multipartBody([
      { filename: 'one.txt', content: 'first' },
      { filename: 'nested/two.txt', content: 'second' },
      { filename: '%E2%9C%93.txt', content: 'check', extended: true },
    ]);
    const res = await rawRequest(server.url, `${files}?path=uploads`, {
      method: 'POST',
      as: alice,
      body,
      headers: { 'content-type': contentType },
    });
    expect(res.status).toBe(201);
    expect(res.json()).toEqual([
      { path: 'uploads/one.txt', size: 5, sha256: sha256('first') },
      { path: 'uploads/nested/two.txt', size: 6, sha256: sha256('second') },
      { path: 'uploads/✓.txt', size: 5, sha256: sha256('check') },
    ]);
    expect(await content('uploads/nested/two.txt')).toBe('second');
    await eventually(() => capture.events.filter((e) => e.type === 'file_changed').length === 3);
    expect(capture.events.find((e) => e.type === 'file_changed')).toMatchObject({
      workflow_id: workflow.id,
      data: { path: 'uploads/one.txt', size: 5, sha256: sha256('first') },
    });
    capture.stop();
  });

  it('refuses a multipart body without files or with a wrong content type, writing nothing', async () => {
    const before = await stored();
    const empty = multipartBody([]);
    const none = await rawRequest(server.url, `${files}?path=x`, {
      method: 'POST',
      as: alice,
      body: empty.body,
      headers: { 'content-type': empty.contentType },
    });
    expect(none.status).toBe(400);
    const wrongType = await rawRequest(server.url, `${files}?path=x`, {
      method: 'POST',
      as: alice,
      body: 'a=b',
      headers: { 'content-type': 'text/plain' },
    });
    expect(wrongType.status).toBe(415);
    expect(await stored()).toEqual(before);
  });

  it('deletes files and directories, announcing each deletion', async () => {
    const capture = captureEvents(server);
    await put('trash/a.txt', 'a');
    await put('trash/b.txt', 'b'); // keeps the folder on S3 too, where an empty folder does not exist
    expect((await server.request(`${files}/trash/a.txt`, { as: alice, method: 'DELETE' })).status).toBe(204);
    expect(await stored()).not.toContain('trash/a.txt');
    expect((await server.request(`${files}/trash`, { as: alice, method: 'DELETE' })).status).toBe(204);
    expect((await stored()).filter((f) => f.startsWith('trash/'))).toEqual([]);
    expect((await server.request(`${files}/trash`, { as: alice, method: 'DELETE' })).status).toBe(404);
    await eventually(
      () =>
        capture.events.filter((e) => e.type === 'file_changed' && (e.data as { deleted?: boolean }).deleted).length ===
        2,
    );
    capture.stop();
  });

  it('lists a workspace whose directory does not exist yet as empty', async () => {
    const other = await createWorkflow(server, alice, workflow.project_id);
    if (backendName === 'local')
      rmSync(join(server.dataDir, 'workspaces', other.project_id, other.id), { recursive: true });
    const res = await server.request(`/svc/api/workflows/${other.id}/files?path=&recursive=1`, { as: alice });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([]);
  });

  it('hides workspaces from non-members and refuses anonymous callers, touching nothing', async () => {
    const mallory = await server.login('mallory');
    expect((await server.request(`${files}/README.md`, { as: mallory })).status).toBe(404);
    const put404 = await rawRequest(server.url, `${files}/evil.txt`, { method: 'PUT', as: mallory, body: 'x' });
    expect(put404.status).toBe(404);
    expect((await rawRequest(server.url, `${files}/evil.txt`, { method: 'PUT', body: 'x' })).status).toBe(401);
    expect(await stored()).not.toContain('evil.txt');
    const bob = await server.login('bob');
    await addMember(server, alice, workflow.project_id, 'bob');
    const bobs = await server.request(`${files}/README.md?raw`, { as: bob });
    expect(await bobs.text()).toBe('# Hello\n');
    expect(await content('README.md')).toBe('# Hello\n');
  });
});
