import { startTestServer, type TestServer } from '../../support/server';
import { createProject } from '../../support/fixtures';
import { rawRequest } from '../../support/raw-http';
import { startBackend, PROVIDERS_AND_BACKENDS, type BackendName, type BackendUnderTest } from './backends';

describe.each(PROVIDERS_AND_BACKENDS)(
  'project object storage on %s with %s storage',
  (provider, backendName: BackendName) => {
    let backend: BackendUnderTest;
    let server: TestServer;
    let alice: string;
    let projectId: string;
    let storage: string;
    /** what the backend holds below this project's storage */
    const stored = async () =>
      (await backend.files(server.dataDir))
        .filter((f) => f.startsWith(`storage/${projectId}/`))
        .map((f) => f.slice(`storage/${projectId}/`.length));

    beforeAll(async () => {
      backend = await startBackend(backendName);
      server = await startTestServer(provider, backend.env);
      alice = await server.login('alice');
      projectId = (await createProject(server, alice)).id;
      storage = `/svc/api/projects/${projectId}/storage`;
    });
    afterAll(async () => {
      await server?.close();
      await backend?.close();
    });

    const put = (path: string, body: string | Buffer, as = alice) =>
      rawRequest(server.url, `${storage}/${path}`, { method: 'PUT', as, body });

    it('lists an empty, never-written root as []', async () => {
      const res = await server.request(`${storage}/`, { as: alice });
      expect([res.status, await res.json()]).toEqual([200, []]);
    });

    it('stores, replaces and serves objects as they were sent', async () => {
      const created = await put('reports/2024/q1.csv', 'a,b\n1,2\n');
      expect(created.status).toBe(201);
      expect(created.json()).toEqual({ path: 'reports/2024/q1.csv', size: 8 });
      expect((await put('reports/2024/q1.csv', 'a,b\n3,4\n')).status).toBe(200);
      const res = await server.request(`${storage}/reports/2024/q1.csv`, { as: alice });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toMatch(/^sandbox\b/);
      expect(res.headers.get('content-disposition')).toBeNull();
      expect(await res.text()).toBe('a,b\n3,4\n');
      expect((await backend.read(server.dataDir, `storage/${projectId}/reports/2024/q1.csv`))?.toString()).toBe(
        'a,b\n3,4\n',
      );
      expect(await stored()).toEqual(['reports/2024/q1.csv']); // no upload temporaries anywhere
    });

    it('returns markdown objects as bytes, not rendered', async () => {
      await put('doc.md', '# Doc\n');
      const res = await server.request(`${storage}/doc.md`, { as: alice });
      expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect(await res.text()).toBe('# Doc\n');
    });

    it('lists directories only with a trailing slash, including the root', async () => {
      const top = (await (await server.request(`${storage}/`, { as: alice })).json()) as {
        path: string;
        type: string;
      }[];
      expect(top.map((e) => [e.path, e.type])).toEqual([
        ['doc.md', 'file'],
        ['reports', 'dir'],
      ]);
      const sub = (await (await server.request(`${storage}/reports/2024/`, { as: alice })).json()) as {
        name: string;
        size: number;
      }[];
      expect(sub).toEqual([expect.objectContaining({ name: 'q1.csv', size: 8 })]);
      const deep = (await (await server.request(`${storage}/?recursive=1`, { as: alice })).json()) as {
        path: string;
      }[];
      expect(deep.map((e) => e.path)).toEqual(['doc.md', 'reports', 'reports/2024', 'reports/2024/q1.csv']);
      expect((await server.request(`${storage}/reports`, { as: alice })).status).toBe(404);
      expect((await server.request(`${storage}/missing/`, { as: alice })).status).toBe(404);
    });

    it('refuses a PUT to a directory-looking key or onto a directory', async () => {
      const slash = await put('reports/', 'x');
      expect([slash.status, slash.json().error.code]).toEqual([400, 'invalid_path']);
      const ontoDir = await put('reports', 'x');
      expect([ontoDir.status, ontoDir.json().error.code]).toEqual([409, 'conflict']);
      const underFile = await put('doc.md/child', 'x');
      expect(underFile.status).toBe(409);
    });

    it('deletes objects and whole directories', async () => {
      await put('tmp/a.bin', Buffer.from([0, 1, 2]));
      expect((await server.request(`${storage}/tmp/a.bin`, { as: alice, method: 'DELETE' })).status).toBe(204);
      expect((await server.request(`${storage}/tmp/a.bin`, { as: alice })).status).toBe(404);
      expect((await server.request(`${storage}/tmp/a.bin`, { as: alice, method: 'DELETE' })).status).toBe(404);
      expect((await server.request(`${storage}/reports/`, { as: alice, method: 'DELETE' })).status).toBe(204);
      expect(await stored()).toEqual(['doc.md']);
      const rootDelete = await server.request(`${storage}/`, { as: alice, method: 'DELETE' });
      expect(rootDelete.status).toBe(400);
      expect(await stored()).toEqual(['doc.md']);
    });

    it('keeps storage private to project members', async () => {
      const mallory = await server.login('mallory');
      expect((await server.request(`${storage}/doc.md`, { as: mallory })).status).toBe(404);
      expect((await put('evil.txt', 'x', mallory)).status).toBe(404);
      expect((await rawRequest(server.url, `${storage}/evil.txt`, { method: 'PUT', body: 'x' })).status).toBe(401);
      expect(await stored()).not.toContain('evil.txt');
      const root2 = await server.login('root'); // administrators see every project
      expect((await server.request(`${storage}/doc.md`, { as: root2 })).status).toBe(200);
    });
  },
);
