import { startTestServer, TEST_PROVIDERS, type TestServer } from '../../support/server';
import { readSetting } from '../../../src/routes/settings/catalog';
import { body } from '../../support/fixtures';

describe.each(TEST_PROVIDERS)('the settings schema and typed values on %s', (provider) => {
  let server: TestServer;
  let ann: string;
  let root: string;
  beforeAll(async () => {
    server = await startTestServer(provider);
    [ann, root] = await Promise.all([server.login('ann'), server.login('root')]);
  });
  afterAll(async () => server?.close());

  const put = (key: string, value: unknown) =>
    server.request(`/svc/api/settings/${key}`, { method: 'PUT', as: root, json: { value } });

  it('documents every setting the service reads, to anyone signed in', async () => {
    const res = await server.request('/svc/api/settings/schema', { as: ann });
    expect(res.status).toBe(200);
    const schema =
      await body<{ key: string; label: string; description: string; type: string; default: string }[]>(res);
    expect(schema.map((s) => [s.key, s.type, s.default])).toEqual([
      ['llm_prices', 'json', '{}'],
      ['llm_detail_retention_days', 'number', '30'],
    ]);
    for (const setting of schema) {
      expect(setting.label.length).toBeGreaterThan(3);
      expect(setting.description.length).toBeGreaterThan(20);
    }
    expect((await server.request('/svc/api/settings/schema')).status).toBe(401);
  });

  it('stores valid values and reads them typed, the default while unset', async () => {
    await expect(readSetting(server.deps.db, 'llm_detail_retention_days')).resolves.toBe(30);
    await expect(readSetting(server.deps.db, 'llm_prices')).resolves.toEqual({});
    const prices = { 'gpt-4o': { prompt_per_million: 2.5, completion_per_million: 10 } };
    expect((await put('llm_prices', JSON.stringify(prices))).status).toBe(200);
    expect((await put('llm_detail_retention_days', ' 7 ')).status).toBe(200);
    await expect(readSetting(server.deps.db, 'llm_prices')).resolves.toEqual(prices);
    await expect(readSetting(server.deps.db, 'llm_detail_retention_days')).resolves.toBe(7);
    expect((await put('llm_detail_retention_days', '0')).status).toBe(200);
    await expect(readSetting(server.deps.db, 'llm_detail_retention_days')).resolves.toBe(0);
  });

  it.each([
    ['a retention that is not a number', 'llm_detail_retention_days', 'thirty', /whole number/],
    ['a negative retention', 'llm_detail_retention_days', '-1', /whole number/],
    ['a fractional retention', 'llm_detail_retention_days', '1.5', /whole number/],
    ['prices that are not JSON', 'llm_prices', '{gpt: 1}', /not valid JSON/],
    ['prices that are not an object', 'llm_prices', '[1, 2]', /./],
    [
      'a price that is not a number',
      'llm_prices',
      '{"m": {"prompt_per_million": "2", "completion_per_million": 1}}',
      /m\.prompt_per_million/,
    ],
    [
      'a negative price',
      'llm_prices',
      '{"m": {"prompt_per_million": -1, "completion_per_million": 1}}',
      /m\.prompt_per_million/,
    ],
    ['a price without its completion half', 'llm_prices', '{"m": {"prompt_per_million": 1}}', /completion_per_million/],
    [
      'an unknown field in a price',
      'llm_prices',
      '{"m": {"prompt_per_million": 1, "completion_per_million": 1, "x": 1}}',
      /./,
    ],
  ])('refuses %s with invalid_input and keeps the value', async (_name, key, value, message) => {
    const before = await server.deps.db.setting.findUnique({ where: { key } });
    const res = await put(key, value);
    expect(res.status).toBe(400);
    const error = (await body(res)).error;
    expect(error.code).toBe('invalid_input');
    expect(error.message).toMatch(new RegExp(`^body\\.value: ${key}: `));
    expect(error.message).toMatch(message);
    expect(await server.deps.db.setting.findUnique({ where: { key } })).toEqual(before);
  });

  it('still stores a key the service does not read, as plain text', async () => {
    expect((await put('team.motto', 'ship it')).status).toBe(200);
    expect(await body(await server.request('/svc/api/settings', { as: ann }))).toMatchObject({
      'team.motto': 'ship it',
    });
  });
});
