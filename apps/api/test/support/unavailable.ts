import { ErrorBodySchema } from '@svc/protocol';
import { TestWorker, workerToken, type ApiProcess } from '@svc/test-kit';

/** A request an everyday user makes, as a fault test sends it again and again. */
export interface Probe {
  what: string;
  send(): Promise<Response>;
}

/**
 * Reads and writes through the session middleware, and a sign-in: what every page and worker does.
 * `root` is an administrator's session cookie; `projectId` a project it owns.
 */
export function everydayRequests(api: ApiProcess, root: string, projectId: string): Probe[] {
  let n = 0;
  return [
    { what: 'list projects', send: () => api.request('/svc/api/projects', { as: root }) },
    {
      what: 'create a workflow',
      send: () =>
        api.request(`/svc/api/projects/${projectId}/workflows`, {
          as: root,
          json: { requirement: `Fault probe ${++n}` },
        }),
    },
    {
      what: 'write a setting',
      send: () => api.request('/svc/api/settings/theme', { method: 'PUT', as: root, json: { value: `t${++n}` } }),
    },
    {
      what: 'sign in',
      send: () =>
        api.request('/svc/auth/dev-login', {
          method: 'POST',
          json: { login: `probe-${++n}` },
          headers: { accept: 'application/json' },
        }),
    },
  ];
}

/** 503 with Retry-After (whole seconds) and the contract's error body, code `unavailable`; its message. */
export async function expectUnavailable(res: Response, what: string): Promise<string> {
  const text = await res.text();
  const context = `${what}: ${res.status} ${text}`;
  expect({ context, status: res.status }).toEqual({ context, status: 503 });
  expect(res.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
  const body = ErrorBodySchema.parse(JSON.parse(text));
  expect(body.error.code).toBe('unavailable');
  return body.error.message;
}

/** Every probe answers 503 `unavailable`; returns their messages. */
export async function expectAllUnavailable(probes: Probe[]): Promise<string[]> {
  const messages: string[] = [];
  for (const probe of probes) messages.push(await expectUnavailable(await probe.send(), probe.what));
  return messages;
}

/** Every probe succeeds (2xx). */
export async function expectAllSucceed(probes: Probe[]): Promise<void> {
  for (const probe of probes) {
    const res = await probe.send();
    const context = `${probe.what}: ${res.status}`;
    expect({ context, ok: res.ok }).toEqual({ context, ok: true });
    await res.body?.cancel();
  }
}

/** What a fault test starts from: a project, a workflow a worker runs, and the everyday requests. */
export interface FaultScene {
  workflowId: string;
  worker: TestWorker;
  /** the workflow's highest stored seq when the worker got it */
  lastSeq: number;
  probes: Probe[];
}

/**
 * Signs in root, creates a project and a workflow, and hands it to a registered test worker (capacity
 * 1: the probes' workflows wait in the queue); checks that every probe succeeds before the fault.
 */
export async function startFaultScene(api: ApiProcess, name: string): Promise<FaultScene> {
  const root = await api.login('root');
  const project = await api.request('/svc/api/projects', { method: 'POST', as: root, json: { name } });
  if (project.status !== 201) throw new Error(`project not created: ${project.status}`);
  const projectId = ((await project.json()) as { id: string }).id;
  const created = await api.request(`/svc/api/projects/${projectId}/workflows`, {
    as: root,
    json: { requirement: `Survive: ${name}` },
  });
  const workflowId = ((await created.json()) as { id: string }).id;
  const worker = await TestWorker.start(api, await workerToken(api), `${name.toLowerCase()}-worker`);
  worker.keepAlive();
  const lastSeq = (await worker.dispatch(workflowId, 'start')).last_seq as number;
  const probes = everydayRequests(api, root, projectId);
  await expectAllSucceed(probes);
  return { workflowId, worker, lastSeq, probes };
}
