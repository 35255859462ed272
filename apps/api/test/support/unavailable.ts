import { ErrorBodySchema } from '@svc/protocol';
import type { ApiProcess } from '@svc/test-kit';

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
