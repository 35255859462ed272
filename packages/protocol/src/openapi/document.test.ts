import { buildOpenApiDocument, documentedOperations } from './document';
import { actionsOf, OPERATION_LIST } from '../routes';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** Every `$ref` anywhere in a JSON value. */
function refs(value: Json, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refs(v, found);
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref' && typeof v === 'string') found.push(v);
      else refs(v, found);
    }
  }
  return found;
}

describe('the OpenAPI document', () => {
  const doc = buildOpenApiDocument({ version: '1.2.3', provider: 'dev' });

  it('is OpenAPI 3.1 with resolvable references only', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.2.3');
    const all = refs(doc);
    expect(all.length).toBeGreaterThan(20);
    for (const ref of all) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(doc.components.schemas[ref.slice('#/components/schemas/'.length)]).toBeDefined();
    }
  });

  it('describes every operation: unique id, declared path parameters, responses, the error body', () => {
    const ids = new Set<string>();
    for (const [path, ops] of Object.entries<Json>(doc.paths)) {
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      for (const [method, op] of Object.entries<Json>(ops)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect([where, ids.has(op.operationId)]).toEqual([where, false]);
        ids.add(op.operationId);
        const declared = (op.parameters ?? []).filter((p: Json) => p.in === 'path').map((p: Json) => p.name);
        expect([where, declared.sort()]).toEqual([where, inPath]);
        const statuses = Object.keys(op.responses);
        // every operation answers something; GET /svc/mcp only says that a stateless MCP server has no stream (405)
        const answers = (s: string) => s.startsWith('2') || s.startsWith('3') || op.operationId === 'getMcpStream';
        expect([where, statuses.some(answers)]).toEqual([where, true]);
        expect(op.responses['500'].content['application/json'].schema).toEqual({
          $ref: '#/components/schemas/ErrorBody',
        });
        if (op.security.length > 0) expect(statuses).toEqual(expect.arrayContaining(['401', '403']));
      }
    }
  });

  it('gives request bodies in their input form and responses in their output form', () => {
    const create = doc.paths['/svc/api/projects/{id}/workflows'].post;
    expect(create.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/CreateWorkflowRequest',
    });
    expect(doc.components.schemas.CreateWorkflowRequest.required).toEqual(['requirement']);
    expect(create.responses['201'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Workflow',
    });
    // List items are workflows with their plan progress.
    expect(doc.components.schemas.WorkflowPage.properties.items.items.required).toEqual(
      expect.arrayContaining(['id', 'number', 'progress', 'author', 'duration_ms']),
    );
    const list = doc.paths['/svc/api/projects/{id}/workflows'].get;
    expect(list.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'limit', in: 'query', required: false }),
        expect.objectContaining({ name: 'cursor', in: 'query', required: false }),
        expect.objectContaining({ name: 'status', in: 'query', required: false }),
        expect.objectContaining({ name: 'q', in: 'query', required: false }),
        expect.objectContaining({ name: 'author', in: 'query', required: false }),
        expect.objectContaining({ name: 'worker', in: 'query', required: false }),
        expect.objectContaining({ name: 'since', in: 'query', required: false }),
        expect.objectContaining({ name: 'until', in: 'query', required: false }),
      ]),
    );
    const events = doc.paths['/svc/api/workflows/{id}/events'].get;
    expect(Object.keys(events.responses['200'].content)).toEqual(['text/event-stream']);
    expect(events.parameters.map((p: Json) => `${p.in}:${p.name}`)).toEqual([
      'path:id',
      'query:since_seq',
      'header:Last-Event-ID',
    ]);
  });

  it("lists only the configured provider's sign-in endpoints", () => {
    const ops = (provider?: 'dev' | 'oauth2' | 'sso') =>
      documentedOperations(buildOpenApiDocument({ version: '1', provider }));
    expect(ops('dev')).toContain('POST /svc/auth/dev-login');
    expect(ops('dev')).not.toContain('GET /svc/auth/callback');
    expect(ops('oauth2')).toContain('GET /svc/auth/callback');
    expect(ops('sso')).not.toContain('POST /svc/auth/dev-login');
    expect(ops()).toHaveLength(OPERATION_LIST.length);
  });

  it('says what the live server sends: servers, health probes, the report as HTML, the stream control frames', () => {
    expect(buildOpenApiDocument({ version: '1', serverUrl: 'https://svc.example' }).servers).toEqual([
      expect.objectContaining({ url: 'https://svc.example' }),
    ]);
    expect(doc.servers[0].url).toBe('/');
    expect(doc.components.schemas.Health.required).toEqual(expect.arrayContaining(['storage', 'storage_backend']));
    // Readiness is a probe of its own beside liveness: 503 while the replica drains for a shutdown.
    const ready = doc.paths['/svc/api/ready'].get;
    expect(Object.keys(ready.responses)).toEqual(expect.arrayContaining(['200', '503']));
    expect(ready.responses['503'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Readiness',
    });
    expect(doc.components.schemas.Readiness.properties.status.enum).toEqual(['ready', 'draining', 'unavailable']);
    const report = doc.paths['/svc/api/workflows/{id}/report'].get.responses['200'].content;
    expect(Object.keys(report)).toEqual(['text/markdown', 'text/html']);
    const frame = doc.paths['/svc/api/workflows/{id}/events'].get.responses['200'].content['text/event-stream'];
    expect(frame.schema).toEqual({ $ref: '#/components/schemas/EventStreamFrame' });
    expect(JSON.stringify(doc.components.schemas.EventStreamFrame)).toContain('subscribed');
  });

  it('names every operation by its id in the table', () => {
    const ids = Object.values<Json>(doc.paths).flatMap((ops) => Object.values<Json>(ops).map((op) => op.operationId));
    expect(ids).toEqual(expect.arrayContaining(['getWorkflow', 'createWorkflow', 'streamWorkflowEvents']));
  });
});

describe('the operations table', () => {
  it('makes public exactly the operations whose policy is public, and gives every operation a policy', () => {
    for (const op of OPERATION_LIST) {
      const actions = actionsOf(op);
      expect([op.id, actions.length > 0]).toEqual([op.id, true]);
      expect([op.id, op.auth === 'public']).toEqual([op.id, actions.includes('public')]);
    }
  });

  it('declares every path parameter of a path, and no other', () => {
    for (const op of OPERATION_LIST) {
      const inPath = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      expect([op.id, Object.keys(op.params?.shape ?? {}).sort()]).toEqual([op.id, inPath]);
    }
  });
});
