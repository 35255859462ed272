import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { TEST_PROVIDERS } from '@svc/test-kit';
import { startTestServer, type TestServer } from '../../support/server';
import { createProject, createWorkflow } from '../../support/fixtures';
import { traversalPayloads } from '../../fixtures/traversal-payloads';
import { startBackend, type BackendUnderTest } from '../../services/storage/backends';
import { inPool, multipartBody, rawRequest, type RawResponse } from '../../support/raw-http';

/**
 * A URL payload as an RFC 5987 `filename*` value naming the same thing: the bytes it decodes to once,
 * with every byte that is not an attr-char percent-encoded again (so NUL, controls and overlong
 * sequences arrive in the multipart header exactly as they would arrive in a URL).
 */
function asExtendedFilename(payload: string): string {
  const bytes = Buffer.from(
    payload.replace(/%([0-9a-f]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  );
  return [...bytes]
    .map((b) =>
      /[A-Za-z0-9!#$&+\-.^_`|~]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).padStart(2, '0')}`,
    )
    .join('');
}

/** The directories above the data directory a payload could reach if it escaped, up to `/`. */
function ancestorsOf(dir: string): string[] {
  const out: string[] = [];
  for (let current = dirname(dir); ; current = dirname(current)) {
    out.push(current);
    if (dirname(current) === current) return out;
  }
}

// The path rules do not depend on the database: S3 runs on one provider, to keep the suite short.
const COMBINATIONS = [
  ...TEST_PROVIDERS.map((provider) => [provider, 'local'] as const),
  [TEST_PROVIDERS[0]!, 's3'] as const,
];

describe.each(COMBINATIONS)(
  'path traversal corpus against every path-taking route on %s with %s storage',
  (provider, backendName) => {
    const canary = `svc-canary-${randomBytes(6).toString('hex')}.txt`;
    const payloads = traversalPayloads(canary);
    let backend: BackendUnderTest;
    let server: TestServer;
    let alice: string;
    let files: string;
    let storage: string;
    let canaries: string[];

    beforeAll(async () => {
      backend = await startBackend(backendName);
      server = await startTestServer(provider, backend.env);
      alice = await server.login('alice');
      const project = await createProject(server, alice);
      const workflow = await createWorkflow(server, alice, project.id);
      files = `/svc/api/workflows/${workflow.id}/files`;
      storage = `/svc/api/projects/${project.id}/storage`;
      for (const root of [`workspaces/${project.id}/${workflow.id}`, `storage/${project.id}`]) {
        await backend.plant(server.dataDir, `${root}/inside.txt`, 'inside');
        await backend.plant(server.dataDir, `${root}/a/inside.txt`, 'inside');
      }
      // Canaries one, two and three levels above the roots (paths below the data directory on disk,
      // keys below the prefix on S3): what a successful escape would hit first.
      canaries = [`workspaces/${project.id}/${canary}`, `workspaces/${canary}`, canary, `storage/${canary}`];
      for (const path of canaries) await backend.plant(server.dataDir, path, 'canary');
    });
    afterAll(async () => {
      await server?.close();
      await backend?.close();
    });

    const routes: Record<string, (payload: string) => Promise<RawResponse>> = {
      'GET files/<path>': (p) => rawRequest(server.url, `${files}/${p}`, { as: alice }),
      'GET files?path=': (p) => rawRequest(server.url, `${files}?path=${p}&recursive=1`, { as: alice }),
      'PUT files/<path>': (p) => rawRequest(server.url, `${files}/${p}`, { method: 'PUT', as: alice, body: 'pwned' }),
      'DELETE files/<path>': (p) => rawRequest(server.url, `${files}/${p}`, { method: 'DELETE', as: alice }),
      'POST files?path= (multipart)': (p) => {
        const { body, contentType } = multipartBody([{ filename: 'pwned.txt', content: 'pwned' }]);
        return rawRequest(server.url, `${files}?path=${p}`, {
          method: 'POST',
          as: alice,
          body,
          headers: { 'content-type': contentType },
        });
      },
      'POST files (multipart filename)': (p) => {
        const { body, contentType } = multipartBody([
          { filename: asExtendedFilename(p), content: 'pwned', extended: true },
        ]);
        return rawRequest(server.url, `${files}?path=`, {
          method: 'POST',
          as: alice,
          body,
          headers: { 'content-type': contentType },
        });
      },
      'GET storage/<path>': (p) => rawRequest(server.url, `${storage}/${p}`, { as: alice }),
      'GET storage/<dir>/': (p) => rawRequest(server.url, `${storage}/${p}/`, { as: alice }),
      'PUT storage/<path>': (p) =>
        rawRequest(server.url, `${storage}/${p}`, { method: 'PUT', as: alice, body: 'pwned' }),
      'DELETE storage/<path>': (p) => rawRequest(server.url, `${storage}/${p}`, { method: 'DELETE', as: alice }),
    };

    it(`has a corpus of several hundred payloads`, () => {
      expect(payloads.length).toBeGreaterThanOrEqual(500);
      expect(new Set(payloads).size).toBe(payloads.length);
    });

    // Several hundred requests per route through real authentication: give them time on a loaded machine.
    it.each(Object.keys(routes))(
      '%s refuses every payload with 400 invalid_path and touches nothing',
      async (route) => {
        const before = await backend.snapshot(server.dataDir);
        const events = await server.deps.db.event.count();
        const failures: string[] = [];
        await inPool(payloads, 16, async (payload) => {
          const res = await routes[route]!(payload);
          const code = res.status === 400 ? res.json().error?.code : undefined;
          // 404 only where the router cannot match the request at all.
          const unmatched = res.status === 404 && res.json().error?.message === 'no such endpoint';
          if (code !== 'invalid_path' && !unmatched)
            failures.push(`${payload} -> ${res.status} ${res.text().slice(0, 120)}`);
        });
        expect(failures).toEqual([]);
        expect(await backend.snapshot(server.dataDir)).toEqual(before);
        expect(await server.deps.db.event.count()).toBe(events);
        for (const path of canaries) expect((await backend.read(server.dataDir, path))?.toString()).toBe('canary');
        for (const dir of ancestorsOf(server.dataDir)) expect(existsSync(join(dir, canary))).toBe(false);
      },
      180_000,
    );
  },
);
