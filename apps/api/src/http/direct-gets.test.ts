import type { Request, Response } from 'express';
import type { IdentifiedOperation } from '@svc/protocol';
import { DirectGets } from './direct-gets';

const op = (method: string, path: string, id = `${method} ${path}`) => ({ id, method, path }) as IdentifiedOperation;

/** What the middleware did with a request: which handler got it with which params, or that it passed it on. */
async function dispatch(direct: DirectGets, url: string, { method = 'GET', headers = {} } = {}) {
  const req = { method, url, headers, params: {} } as unknown as Request;
  return new Promise<{ handled: string; params: unknown } | { next: unknown }>((resolve) => {
    handledBy = (name) => resolve({ handled: name, params: req.params });
    direct.middleware(req, {} as Response, (error?: unknown) => resolve({ next: error }));
  });
}
let handledBy: (name: string) => void = () => undefined;
const handler = (name: string) => async () => handledBy(name);

function table(): DirectGets {
  const direct = new DirectGets(() => undefined);
  direct.add(op('GET', '/svc/api/workflows/waiting'), null); // a literal route Express tries first
  direct.add(op('GET', '/svc/api/workflows/{id}'), handler('getWorkflow'));
  direct.add(op('DELETE', '/svc/api/workflows/{id}'), handler('deleteWorkflow'));
  direct.add(op('GET', '/svc/api/workflows/{id}/plan'), handler('getPlan'));
  direct.add(op('GET', '/svc/api/projects/{id}/members/{user_id}'), handler('getMember'));
  return direct;
}

describe('DirectGets', () => {
  it('hands a GET of a direct shape to its handler with the path parameters', async () => {
    const direct = table();
    expect(await dispatch(direct, '/svc/api/workflows/wf_1?limit=2')).toEqual({
      handled: 'getWorkflow',
      params: { id: 'wf_1' },
    });
    expect(await dispatch(direct, '/svc/api/Workflows/wf_1/PLAN')).toEqual({
      handled: 'getPlan',
      params: { id: 'wf_1' },
    });
    expect(await dispatch(direct, '/svc/api/projects/p1/members/u2')).toEqual({
      handled: 'getMember',
      params: { id: 'p1', user_id: 'u2' },
    });
  });

  it('leaves to the middleware chain what Express might route otherwise', async () => {
    const direct = table();
    const passedOn = { next: undefined };
    expect(await dispatch(direct, '/svc/api/workflows/waiting')).toEqual(passedOn); // declared first
    expect(await dispatch(direct, '/svc/api/workflows/wf_1', { method: 'DELETE' })).toEqual(passedOn);
    expect(await dispatch(direct, '/svc/api/workflows/wf_1', { method: 'HEAD' })).toEqual(passedOn);
    expect(await dispatch(direct, '/svc/api/workflows/wf%5F1')).toEqual(passedOn); // Express decodes it
    expect(await dispatch(direct, '/svc/api/workflows/wf_1/')).toEqual(passedOn);
    expect(await dispatch(direct, '/svc/api/workflows//plan')).toEqual(passedOn);
    expect(await dispatch(direct, '/svc/api/workflows/wf_1/files')).toEqual(passedOn);
    const withBody = { headers: { 'content-length': '0' } };
    expect(await dispatch(direct, '/svc/api/workflows/wf_1', withBody)).toEqual(passedOn);
  });

  it("passes a handler's failure on to the error handler", async () => {
    const direct = new DirectGets(() => undefined);
    const failure = new Error('boom');
    direct.add(op('GET', '/svc/api/projects'), async () => Promise.reject(failure));
    expect(await dispatch(direct, '/svc/api/projects')).toEqual({ next: failure });
  });
});
