import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { addMember, body, createProject, createWorkflow, dbState } from '../support/fixtures';

interface Route {
  name: string;
  method: string;
  path: string;
  /** a body of the right shape with one field of the wrong type */
  wrongType: unknown;
  /** a valid body plus a field the schema does not know */
  unknownField: unknown;
}

const TEN_MB = 10 * 1024 * 1024;

describe.each(TEST_PROVIDERS)('bad input to resource routes on %s', (provider) => {
  let server: TestServer;
  let root: string;
  let ann: string;
  let routes: Route[];
  let foreign: { project: string; workflow: string; member: string };
  let own: { project: string };
  beforeAll(async () => {
    server = await startTestServer(provider);
    [root, ann] = await Promise.all([server.login('root'), server.login('ann')]);
    const bob = await server.login('bob');
    const project = await createProject(server, root, 'Mine');
    await addMember(server, root, project.id, 'ann');
    const workflow = await createWorkflow(server, root, project.id);
    await server.deps.db.workflow.update({
      where: { id: workflow.id },
      data: { status: 'waiting_user', question: 'q?' },
    });
    const article = await body(
      await server.request('/svc/api/kb/articles', { method: 'POST', as: root, json: { title: 'A', content: 'b' } }),
    );
    const annId = (await server.deps.db.user.findUniqueOrThrow({ where: { login: 'ann' } })).id;
    own = { project: project.id };
    const theirs = await createProject(server, bob, 'Theirs');
    const theirWorkflow = await createWorkflow(server, bob, theirs.id);
    foreign = {
      project: theirs.id,
      workflow: theirWorkflow.id,
      member: (await server.deps.db.user.findUniqueOrThrow({ where: { login: 'bob' } })).id,
    };
    const p = `/svc/api/projects/${project.id}`;
    const w = `/svc/api/workflows/${workflow.id}`;
    routes = [
      {
        name: 'create project',
        method: 'POST',
        path: '/svc/api/projects',
        wrongType: { name: 42 },
        unknownField: { name: 'x', owner: 'ann' },
      },
      {
        name: 'patch project',
        method: 'PATCH',
        path: p,
        wrongType: { description: ['x'] },
        unknownField: { name: 'x', deleted_at: null },
      },
      {
        name: 'add member',
        method: 'POST',
        path: `${p}/members`,
        wrongType: { login: 'bob', role: 'admin' },
        unknownField: { login: 'bob', role: 'member', is_admin: true },
      },
      {
        name: 'patch member',
        method: 'PATCH',
        path: `${p}/members/${annId}`,
        wrongType: { role: true },
        unknownField: { role: 'owner', login: 'x' },
      },
      {
        name: 'create workflow',
        method: 'POST',
        path: `${p}/workflows`,
        wrongType: { requirement: { text: 'x' } },
        unknownField: { requirement: 'x', status: 'completed' },
      },
      {
        name: 'answer',
        method: 'POST',
        path: `${w}/answer`,
        wrongType: { answer: 1 },
        unknownField: { answer: 'x', status: 'running' },
      },
      {
        name: 'feedback',
        method: 'POST',
        path: `${w}/feedback`,
        wrongType: { message: null },
        unknownField: { message: 'x', plan: [] },
      },
      { name: 'cancel', method: 'POST', path: `${w}/cancel`, wrongType: [], unknownField: { force: true } },
      { name: 'retry', method: 'POST', path: `${w}/retry`, wrongType: 'again', unknownField: { from_step: 2 } },
      {
        name: 'put setting',
        method: 'PUT',
        path: '/svc/api/settings/theme',
        wrongType: { value: 1 },
        unknownField: { value: 'x', key: 'y' },
      },
      {
        name: 'put kb',
        method: 'PUT',
        path: '/svc/api/kb',
        wrongType: { text: ['# x'] },
        unknownField: { text: '# x', mode: 'append' },
      },
      {
        name: 'create article',
        method: 'POST',
        path: '/svc/api/kb/articles',
        wrongType: { title: 'x', content: 5 },
        unknownField: { title: 'x', content: 'y', id: 'z' },
      },
      {
        name: 'update article',
        method: 'PUT',
        path: `/svc/api/kb/articles/${article.id}`,
        wrongType: { title: null, content: 'y' },
        unknownField: { title: 'x', content: 'y', created_at: 'now' },
      },
    ];
  });
  afterAll(async () => server?.close());

  async function expectRefused(route: Route, init: RequestInit, status: number, code: string) {
    const before = await dbState(server.deps.db);
    const res = await server.request(route.path, { method: route.method, as: root, ...init });
    expect({ route: route.name, status: res.status }).toEqual({ route: route.name, status });
    expect((await body(res)).error.code).toBe(code);
    expect(await dbState(server.deps.db)).toEqual(before);
  }
  const json = (payload: string | Buffer): RequestInit => ({
    body: payload,
    headers: { 'content-type': 'application/json' },
  });
  const each = async (run: (route: Route) => Promise<void>) => {
    for (const route of routes) await run(route);
  };

  it('refuses malformed JSON', () =>
    each((route) => expectRefused(route, json('{"name": "x",'), 400, 'invalid_input')));

  it('refuses bodies that are not valid UTF-8', () =>
    each((route) =>
      expectRefused(
        route,
        json(Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')])),
        400,
        'invalid_input',
      ),
    ));

  it('refuses fields of the wrong type', () =>
    each((route) =>
      expectRefused(
        route,
        { body: JSON.stringify(route.wrongType), headers: { 'content-type': 'application/json' } },
        400,
        'invalid_input',
      ),
    ));

  it('refuses unknown fields, naming them', async () => {
    await each(async (route) => {
      await expectRefused(
        route,
        { body: JSON.stringify(route.unknownField), headers: { 'content-type': 'application/json' } },
        400,
        'invalid_input',
      );
    });
    const res = await server.request('/svc/api/projects', {
      method: 'POST',
      as: root,
      json: { name: 'x', owner: 'ann' },
    });
    expect((await body(res)).error.message).toBe('body.owner: unknown field');
  });

  it('refuses 10 MB bodies with payload_too_large', () =>
    each((route) =>
      expectRefused(route, json(JSON.stringify({ text: 'x'.repeat(TEN_MB) })), 413, 'payload_too_large'),
    ));

  it('refuses a 10 MB whole-KB text body too', async () => {
    const route = routes.find((r) => r.name === 'put kb')!;
    await expectRefused(
      route,
      { body: '#'.repeat(TEN_MB), headers: { 'content-type': 'text/plain' } },
      413,
      'payload_too_large',
    );
  });

  it('answers 404 for ids of a project the caller is not in, and changes nothing', async () => {
    const theirs = `/svc/api/projects/${foreign.project}`;
    const cases: [string, string, unknown?][] = [
      ['GET', theirs],
      ['PATCH', theirs, { name: 'hijacked' }],
      ['DELETE', theirs],
      ['GET', `${theirs}/members`],
      ['POST', `${theirs}/members`, { login: 'ann', role: 'owner' }],
      ['PATCH', `${theirs}/members/${foreign.member}`, { role: 'member' }],
      ['DELETE', `${theirs}/members/${foreign.member}`],
      ['GET', `${theirs}/workflows`],
      ['POST', `${theirs}/workflows`, { requirement: 'x' }],
      ['GET', `/svc/api/workflows/${foreign.workflow}`],
      ['DELETE', `/svc/api/workflows/${foreign.workflow}`],
      ['POST', `/svc/api/workflows/${foreign.workflow}/cancel`, {}],
      ['GET', `/svc/api/workflows/${foreign.workflow}/plan`],
    ];
    for (const [method, path, payload] of cases) {
      const before = await dbState(server.deps.db);
      const res = await server.request(path, { method, as: ann, json: payload });
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
      expect(await dbState(server.deps.db)).toEqual(before);
    }
  });

  it("answers 404 for another project's member id used under one's own project", async () => {
    const before = await dbState(server.deps.db);
    const member = await server.request(`/svc/api/projects/${own.project}/members/${foreign.member}`, {
      method: 'PATCH',
      as: root,
      json: { role: 'owner' },
    });
    expect(member.status).toBe(404);
    const removal = await server.request(`/svc/api/projects/${own.project}/members/${foreign.member}`, {
      method: 'DELETE',
      as: root,
    });
    expect(removal.status).toBe(404);
    expect(await dbState(server.deps.db)).toEqual(before);
  });
});
