import { documentedOperations } from '@svc/protocol';
import { createApp } from '../../../src/app';
import { startTestServer, type TestServer } from '../../support/server';
import { normalizeRoute, routeInventory } from '../../policies/route-inventory';

/** A documented operation as the inventory names it: `METHOD /full/path`, parameters as `{}`. */
function inventoryName(operation: string): string {
  const [method, path] = operation.split(' ') as [string, string];
  return `${method} ${normalizeRoute(path)}`;
}

describe('the OpenAPI document and reference page', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
  });
  afterAll(async () => server?.close());

  // The document and the mounts both come from the operations table: the app serves exactly what it documents.
  it("documents exactly the app's routes: none missing, none that the app does not have", async () => {
    const res = await server.request('/svc/api/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; info: { version: string } };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe(server.deps.version);
    const documented = [...new Set(documentedOperations(doc).map(inventoryName))].sort();
    const inventory = routeInventory(createApp(server.deps));
    expect(inventory.length).toBeGreaterThan(50);
    expect(documented).toEqual(inventory);
  });

  it('renders the document as a static reference page, public, without scripts', async () => {
    const res = await server.request('/svc/api/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await res.text();
    expect(html).not.toMatch(/<script/i);
    const doc = (await (await server.request('/svc/api/openapi.json')).json()) as { paths: object };
    for (const path of Object.keys(doc.paths)) expect(html).toContain(`<code>${path}</code>`);
    expect(html).toContain('id="schema-ErrorBody"');
    expect(html).toContain('href="#schema-Workflow"');
  });
});
