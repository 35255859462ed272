import { TEST_PROVIDERS } from '../support/server';
import { body, createWorkflow } from '../support/fixtures';
import { llmCall, workerSuite } from '../ws/clients';

const DETAIL = {
  messages: [{ role: 'user', content: 'the secret plan' }],
  reply: { role: 'assistant', content: 'noted' },
  truncated: false,
};

const llmCallWithDetail = () => llmCall({ detail: DETAIL, finish_reason: 'stop' });

/**
 * Issue 21, finding 9: lowering `llm_detail_retention_days` takes effect before the settings request
 * answers. Details stored through the worker protocol are unreadable on the very next read, with no
 * sweep run and nothing waited for.
 */
describe.each(TEST_PROVIDERS)('LLM detail retention applied on change on %s', (provider) => {
  const suite = workerSuite(provider);
  let root: string;

  beforeAll(async () => {
    root = await suite.server.login('root');
  });
  afterEach(() => suite.server.deps.db.setting.deleteMany({ where: { key: 'llm_detail_retention_days' } }));

  const get = (path: string) => suite.server.request(`/svc/api${path}`, { as: suite.alice });
  const setRetention = (value: string) =>
    suite.server.request('/svc/api/settings/llm_detail_retention_days', { method: 'PUT', as: root, json: { value } });

  /** A workflow with `count` LLM calls whose details are stored; their ids. */
  async function callsWithDetails(name: string, count: number): Promise<{ id: string; calls: string[] }> {
    const worker = await suite.start(name);
    const { id } = await createWorkflow(suite.server, suite.alice, suite.projectId);
    const { last_seq } = await worker.dispatch(id, 'start');
    for (let i = 1; i <= count; i++) await worker.store(id, last_seq + i, llmCallWithDetail());
    const calls = (await body(await get(`/workflows/${id}/llm-calls`))).items;
    expect(calls.map((c: { has_detail: boolean }) => c.has_detail)).toEqual(Array(count).fill(true));
    return { id, calls: calls.map((c: { id: string }) => c.id) };
  }

  it('makes every stored detail unreadable as soon as the setting is 0', async () => {
    const { id, calls } = await callsWithDetails('remembers', 2);
    const detail = await get(`/workflows/${id}/llm-calls/${calls[0]}`);
    expect((await body(detail)).messages).toEqual(DETAIL.messages);

    const res = await setRetention('0');
    expect(res.status).toBe(200);
    for (const call of calls) {
      const gone = await get(`/workflows/${id}/llm-calls/${call}`);
      expect({ status: gone.status, code: (await body(gone)).error.code }).toEqual({ status: 404, code: 'not_found' });
    }
    const listed = (await body(await get(`/workflows/${id}/llm-calls`))).items;
    expect(listed.map((c: { has_detail: boolean }) => c.has_detail)).toEqual([false, false]);
    expect(await suite.server.deps.db.llmCallDetail.count({ where: { call_id: { in: calls } } })).toBe(0);
  });

  it('keeps details a longer retention allows, and a refused value changes nothing', async () => {
    const { id, calls } = await callsWithDetails('keeps', 1);
    const refused = await setRetention('-1');
    expect(refused.status).toBe(400);
    expect((await body(refused)).error.code).toBe('invalid_input');
    expect((await get(`/workflows/${id}/llm-calls/${calls[0]}`)).status).toBe(200);

    expect((await setRetention('7')).status).toBe(200);
    expect((await get(`/workflows/${id}/llm-calls/${calls[0]}`)).status).toBe(200);
  });
});
