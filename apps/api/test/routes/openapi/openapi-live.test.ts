import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { EventStream } from '@svc/test-kit';
import { startTestServer, type TestServer } from '../../support/server';
import { createProject, createWorkflow } from '../../support/fixtures';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/**
 * The served OpenAPI document against what the live server really answers: a response body must validate
 * against the schema documented for its status and content type (`additionalProperties: false` included).
 */
describe('the OpenAPI document against the live server', () => {
  let server: TestServer;
  let doc: Json;
  let ajv: Ajv2020;
  let alice: string;
  let workflow: { id: string; project_id: string };

  /** The documented response of an operation for a status, by content type. */
  const documented = (path: string, status: number): Record<string, { schema: Json }> =>
    doc.paths[path].get.responses[String(status)].content;

  /** Validates `value` against a documented schema (its `$ref`s resolve into the document's components). */
  const expectValid = (schema: Json, value: unknown) => {
    const validate = ajv.compile(schema);
    const ok = validate(value);
    expect([ok, validate.errors ?? []]).toEqual([true, []]);
  };

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    doc = await (await server.request('/svc/api/openapi.json')).json();
    ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema({ $id: 'openapi', components: doc.components });
    alice = await server.login('alice');
    const project = await createProject(server, alice);
    workflow = await createWorkflow(server, alice, project.id);
  });
  afterAll(async () => server?.close());

  /** Component references point into the document added under the id `openapi`. */
  const resolved = (schema: Json): Json =>
    JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"openapi#/components/'));

  it('names the server it is served by', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: server.url })]);
  });

  it("documents the health answer's every field (storage and its backend included)", async () => {
    const res = await server.request('/svc/api/health');
    expect(res.status).toBe(200);
    const answer = await res.json();
    expect(answer).toEqual(expect.objectContaining({ storage: 'ok', storage_backend: 'local' }));
    expectValid(resolved(documented('/svc/api/health', 200)['application/json']!.schema), answer);
  });

  it('documents the report in both of its forms, markdown and HTML', async () => {
    const dir = join(server.dataDir, 'workspaces', workflow.project_id, workflow.id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'report.md'), '# Report\n\nDone.');
    const types = Object.keys(documented('/svc/api/workflows/{id}/report', 200));
    for (const query of ['', '?format=html']) {
      const res = await server.request(`/svc/api/workflows/${workflow.id}/report${query}`, { as: alice });
      expect(res.status).toBe(200);
      await res.text();
      expect(types).toContain(res.headers.get('content-type')!.split(';')[0]);
    }
  });

  it("documents an event stream's first frames: the replayed events, then the subscribed control frame", async () => {
    const path = '/svc/api/workflows/{id}/events';
    const frame = resolved(documented(path, 200)['text/event-stream']!.schema);
    const stream = await EventStream.open(server.url, `/svc/api/workflows/${workflow.id}/events?since_seq=0`, alice);
    try {
      const subscribed = await stream.next((e) => e.event === 'subscribed', 'the subscribed frame');
      const frames = stream.events.slice(0, stream.events.indexOf(subscribed) + 1);
      expect(frames.length).toBeGreaterThan(1);
      for (const event of frames) {
        const data = JSON.parse(event.data);
        expect(data.type).toBe(event.event);
        expectValid(frame, data);
      }
    } finally {
      stream.close();
    }
  });

  it('documents the readiness answer, serving (200) and draining (503)', async () => {
    const ready = await server.request('/svc/api/ready');
    expect(ready.status).toBe(200);
    const serving = await ready.json();
    expect(serving).toEqual(expect.objectContaining({ status: 'ready' }));
    expectValid(resolved(documented('/svc/api/ready', 200)['application/json']!.schema), serving);
    // The drain flag alone (no listener is closed); the last test here, as streams opened after it end at once.
    server.deps.serving.drain();
    const draining = await server.request('/svc/api/ready');
    expect(draining.status).toBe(503);
    expect(draining.headers.get('connection')).toBe('close');
    const answer = await draining.json();
    expect(answer).toEqual(expect.objectContaining({ status: 'draining' }));
    expectValid(resolved(documented('/svc/api/ready', 503)['application/json']!.schema), answer);
  });
});
