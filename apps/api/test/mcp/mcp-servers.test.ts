import type { McpServer, McpServerList } from '@svc/protocol';
import { AppLinks } from '../../src/apps/app-link';
import { buildDispatch } from '../../src/dispatch/message';
import { driverOf, startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { addMember, body, createProject } from '../support/fixtures';

describe.each(TEST_PROVIDERS)('project MCP servers on %s', (provider) => {
  let server: TestServer;
  let alice: string;
  let bob: string;
  let projectId: string;
  let otherProject: string;

  beforeAll(async () => {
    server = await startTestServer(provider);
    alice = await server.login('alice');
    bob = await server.login('bob');
    projectId = (await createProject(server, alice)).id;
    otherProject = (await createProject(server, alice, 'Other')).id;
    await addMember(server, alice, projectId, 'bob');
  });
  afterAll(async () => server?.close());

  const put = (name: string, json: unknown, as = alice, project = projectId) =>
    server.request(`/svc/api/projects/${project}/mcp-servers/${name}`, { method: 'PUT', as, json });
  const list = async (as = alice, project = projectId) =>
    body<McpServerList>(await server.request(`/svc/api/projects/${project}/mcp-servers`, { as }));

  it('owners create, replace and delete servers; members list them; the dispatch carries the enabled ones', async () => {
    const docs = {
      transport: 'http',
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: 'Bearer ${{ secrets.DOCS_TOKEN }}', 'X-Team': 'shop' },
    };
    const created = await put('docs', docs);
    expect(created.status).toBe(201);
    expect(await body<McpServer>(created)).toMatchObject({
      name: 'docs',
      ...docs,
      allow_writes: false,
      enabled: true,
      updated_by: { name: expect.any(String) },
    });
    const replaced = await put('docs', { ...docs, allow_writes: true });
    expect(replaced.status).toBe(200);
    expect(await body<McpServer>(replaced)).toMatchObject({ allow_writes: true });
    const files = { transport: 'stdio', command: ['node', 'server.js', 'stdio'], env: { ROOT: '.' } };
    expect((await put('files', files)).status).toBe(201);
    expect((await put('off', { ...files, enabled: false })).status).toBe(201);

    // A member lists them (sorted by name), but may not change them.
    const seen = await list(bob);
    expect(seen.items.map((s) => s.name)).toEqual(['docs', 'files', 'off']);
    expect(seen.items[1]).toMatchObject(files);
    expect(seen.items[1]).not.toHaveProperty('url');
    expect((await put('docs', files, bob)).status).toBe(403);
    expect(
      (await server.request(`/svc/api/projects/${projectId}/mcp-servers/docs`, { method: 'DELETE', as: bob })).status,
    ).toBe(403);

    // The dispatch of a run carries the enabled servers, the secret reference left for the worker.
    const created_run = await body<{ id: string }>(
      await server.request(`/svc/api/projects/${projectId}/workflows`, {
        method: 'POST',
        as: alice,
        json: { requirement: 'r' },
      }),
    );
    const workflow = await server.deps.db.workflow.findUniqueOrThrow({ where: { id: created_run.id } });
    const dispatch = await buildDispatch(
      { ...driverOf(server), appLinks: new AppLinks(server.deps.config) },
      workflow,
      'start',
    );
    expect(dispatch.mcp_servers?.map((s) => s.name)).toEqual(['docs', 'files']);
    expect(dispatch.mcp_servers?.[0]?.headers?.Authorization).toBe('Bearer ${{ secrets.DOCS_TOKEN }}');

    const deleted = await server.request(`/svc/api/projects/${projectId}/mcp-servers/off`, {
      method: 'DELETE',
      as: alice,
    });
    expect(deleted.status).toBe(204);
    const again = await server.request(`/svc/api/projects/${projectId}/mcp-servers/off`, {
      method: 'DELETE',
      as: alice,
    });
    expect(again.status).toBe(404);
    // Another project's servers are its own.
    expect((await list(alice, otherProject)).items).toEqual([]);
  });

  it.each([
    ['a name with __', 'my__docs', { transport: 'http', url: 'https://x.example/mcp' }],
    ['an upper-case name', 'Docs', { transport: 'http', url: 'https://x.example/mcp' }],
    ['a name starting with -', '-docs', { transport: 'http', url: 'https://x.example/mcp' }],
    ['an http server with a file: url', 'bad', { transport: 'http', url: 'file:///etc/passwd' }],
    ['an http server without url', 'bad', { transport: 'http' }],
    ['a stdio server without command', 'bad', { transport: 'stdio', env: { A: 'b' } }],
    ['a stdio server with an empty command', 'bad', { transport: 'stdio', command: [] }],
    ['a stdio server with a url', 'bad', { transport: 'stdio', command: ['x'], url: 'https://x.example' }],
    [
      'a header with another ${{ }} expression',
      'bad',
      { transport: 'http', url: 'https://x.example', headers: { A: '${{ env.HOME }}' } },
    ],
    [
      'a header naming a bad secret',
      'bad',
      { transport: 'http', url: 'https://x.example', headers: { A: '${{ secrets.9X }}' } },
    ],
    ['an env name that is no variable', 'bad', { transport: 'stdio', command: ['x'], env: { 'A-B': 'c' } }],
    ['an unknown key', 'bad', { transport: 'http', url: 'https://x.example', extra: 1 }],
  ])('refuses %s with the contract error and changes nothing', async (_what, name, json) => {
    const before = await list();
    const res = await put(name, json);
    expect(res.status).toBe(400);
    expect(await body(res)).toMatchObject({ error: { code: 'invalid_input', message: expect.any(String) } });
    expect(await list()).toEqual(before);
  });
});
