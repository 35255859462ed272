import { DomainError } from '../../src/domain/errors';
import { RenderPool } from '../../src/http/render-pool';
import { startTestServer, type TestServer } from '../support/server';
import { addMember, createProject, createWorkflow } from '../support/fixtures';
import { SETUP_TIMEOUT_MS } from '../ws/clients';

/** Markdown with raw HTML in it, repeated to `bytes` (written in one fill, so a large one is quick). */
function repeatedMarkdown(bytes: number): Buffer {
  const block =
    '## Section\n\nSome **bold** text with <b>tags</b> & a [link](https://example.test).\n\n- one\n- two\n\n';
  return Buffer.alloc(bytes).fill(block);
}

/**
 * Issue 21, finding 3: a member's 80 MiB report.md rendered on the event loop killed the API (30 MiB:
 * nothing else served for 22.5 s); the files route rendered up to 5 MB there too. Markdown above the
 * render limit is now streamed as escaped text, and what is rendered runs on worker threads.
 */
describe('markdown rendering cannot hold or kill the server', () => {
  let server: TestServer;
  let member: string;
  let projectId: string;
  let workflowId: string;
  const limit = () => server.deps.config.markdown.maxRenderedBytes;

  const upload = async (path: string, content: Buffer) => {
    const res = await server.request(`/svc/api/workflows/${workflowId}/files/${path}`, {
      method: 'PUT',
      as: member,
      body: content,
    });
    expect([200, 201]).toContain(res.status);
  };

  /**
   * Requests `path` and, once its answer has begun (headers in) but before its body is read, proves
   * that other requests are answered; then reads the body. The server streams it, so it cannot finish
   * before the test reads it: the other answers come first by construction, not by timing.
   */
  async function othersServedDuring(path: string): Promise<{ status: number; type: string | null; body: string }> {
    const render = await server.request(path, { as: member });
    const health = await server.request('/svc/api/health');
    expect(health.status).toBe(200);
    const project = await server.request(`/svc/api/projects/${projectId}`, { as: member });
    expect(project.status).toBe(200);
    const body = await render.text();
    return { status: render.status, type: render.headers.get('content-type'), body };
  }

  const expectEscapedText = (page: string, bytes: number) => {
    expect(page).toMatch(/larger than the 2\.0 MiB that are rendered; it is shown as plain text/);
    expect(page).toContain('&#60;b&#62;tags&#60;/b&#62; &#38; a [link](https://example.test)');
    expect(page).not.toContain('<b>');
    expect(page).not.toContain('<h2>');
    expect(page.length).toBeGreaterThan(bytes);
  };

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    const owner = await server.login('owner');
    projectId = (await createProject(server, owner)).id;
    await addMember(server, owner, projectId, 'mallory', 'member');
    member = await server.login('mallory');
    workflowId = (await createWorkflow(server, owner, projectId)).id;
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => server?.close());

  it('streams a 48 MiB report.md as escaped text while other requests are served, and stays up', async () => {
    const bytes = 48 * 1024 ** 2;
    await upload('report.md', repeatedMarkdown(bytes));

    const html = await othersServedDuring(`/svc/api/workflows/${workflowId}/report?format=html`);
    expect(html.status).toBe(200);
    expect(html.type).toMatch(/^text\/html/);
    expectEscapedText(html.body, bytes);

    const markdown = await server.request(`/svc/api/workflows/${workflowId}/report`, { as: member });
    expect(markdown.headers.get('content-type')).toMatch(/^text\/markdown/);
    expect((await markdown.arrayBuffer()).byteLength).toBe(bytes);
    expect((await server.request('/svc/api/health')).status).toBe(200);
  });

  it("streams a .md file preview above the limit (the files route's old 5 MB limit let this render)", async () => {
    const bytes = 4 * 1024 ** 2;
    expect(bytes).toBeGreaterThan(limit());
    await upload('notes/big.md', repeatedMarkdown(bytes));

    const preview = await othersServedDuring(`/svc/api/workflows/${workflowId}/files/notes/big.md`);
    expect(preview.status).toBe(200);
    expect(preview.type).toMatch(/^text\/html/);
    expectEscapedText(preview.body, bytes);

    const raw = await server.request(`/svc/api/workflows/${workflowId}/files/notes/big.md?raw`, { as: member });
    expect(raw.headers.get('content-type')).toMatch(/^text\/plain/);
    expect((await raw.arrayBuffer()).byteLength).toBe(bytes);
  });

  it('still renders markdown under the limit (on a render thread), escaping raw HTML', async () => {
    await upload('report.md', repeatedMarkdown(limit()));
    const report = await server.request(`/svc/api/workflows/${workflowId}/report?format=html`, { as: member });
    const page = await report.text();
    expect(report.status).toBe(200);
    expect(page).toContain('<h2>Section</h2>');
    expect(page).toContain('&lt;b&gt;tags&lt;/b&gt;');
    expect(page).not.toContain('shown as plain text');

    await upload('notes/small.md', Buffer.from('# Notes\n\n<script>alert(1)</script>\n'));
    const preview = await server.request(`/svc/api/workflows/${workflowId}/files/notes/small.md`, { as: member });
    const small = await preview.text();
    expect(small).toContain('<h1>Notes</h1>');
    expect(small).not.toContain('<script>');
  });
});

describe('RenderPool', () => {
  it('renders on its threads and refuses renders past its queue with unavailable (503)', async () => {
    const pool = new RenderPool({ threads: 1, queue: 1 });
    const source = repeatedMarkdown(64 * 1024);
    // Submitted together: one runs, one waits, the third finds the queue full at once.
    const running = pool.render(source);
    const waiting = pool.render(source);
    const refused = pool.render(source);
    await expect(refused).rejects.toBeInstanceOf(DomainError);
    await expect(refused).rejects.toMatchObject({
      code: 'unavailable',
      headers: { 'Retry-After': expect.any(String) },
    });
    expect(pool.pending).toEqual({ running: 1, waiting: 1 });
    for (const html of await Promise.all([running, waiting])) expect(html).toContain('<h2>Section</h2>');
    expect(pool.pending).toEqual({ running: 0, waiting: 0 });
  });
});
