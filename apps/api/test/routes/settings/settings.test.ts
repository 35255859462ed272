import { startTestServer, TEST_PROVIDERS, type TestServer } from '../../support/server';
import { body } from '../../support/fixtures';

describe.each(TEST_PROVIDERS)('settings on %s', (provider) => {
  let server: TestServer;
  let ann: string;
  let root: string;
  beforeAll(async () => {
    server = await startTestServer(provider);
    [ann, root] = await Promise.all([server.login('ann'), server.login('root')]);
  });
  afterAll(async () => server?.close());

  const put = (key: string, json: unknown, as = root) =>
    server.request(`/svc/api/settings/${key}`, { method: 'PUT', as, json });

  it('starts empty, stores and overwrites values set by an administrator', async () => {
    expect(await body(await server.request('/svc/api/settings', { as: ann }))).toEqual({});
    const res = await put('llm.model', { value: 'gpt-x' });
    expect(res.status).toBe(200);
    expect(await body(res)).toMatchObject({ key: 'llm.model', value: 'gpt-x' });
    await put('theme', { value: 'dark' });
    await put('llm.model', { value: 'gpt-y\nmulti-line ✓' });
    expect(await body(await server.request('/svc/api/settings', { as: ann }))).toEqual({
      'llm.model': 'gpt-y\nmulti-line ✓',
      theme: 'dark',
    });
    const row = await server.deps.db.setting.findUniqueOrThrow({ where: { key: 'llm.model' } });
    expect(row.updated_by).toBe((await server.deps.db.user.findUniqueOrThrow({ where: { login: 'root' } })).id);
  });

  it('refuses writes by non-administrators', async () => {
    const res = await put('theme', { value: 'light' }, ann);
    expect(res.status).toBe(403);
    expect((await server.deps.db.setting.findUnique({ where: { key: 'theme' } }))?.value).toBe('dark');
  });

  it.each([
    ['a key with bad characters', 'a%20b', { value: 'x' }],
    ['a key longer than 100 characters', 'k'.repeat(101), { value: 'x' }],
    ['a value that is not a string', 'n', { value: 5 }],
    ['an unknown field', 'n', { value: 'x', scope: 'global' }],
  ])('refuses %s', async (_name, key, json) => {
    const before = await server.deps.db.setting.count();
    const res = await put(key, json);
    expect(res.status).toBe(400);
    expect((await body(res)).error.code).toBe('invalid_input');
    await expect(server.deps.db.setting.count()).resolves.toBe(before);
  });
});
