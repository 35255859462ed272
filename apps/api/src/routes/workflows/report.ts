import { text } from 'node:stream/consumers';
import { Router } from 'express';
import MarkdownIt from 'markdown-it';
import { ReportQuerySchema } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import { principalOf, requireAuth } from '../../auth/authenticate';
import { parseInput } from '../../domain/validate';
import { DomainError, notFound } from '../../domain/errors';
import { authorizeWorkflow } from '../../policies/access';
import type { StorageArea } from '../../services/storage';

export const REPORT_FILE = 'report.md';

// html: false escapes raw HTML in the report instead of passing it through.
const markdown = new MarkdownIt({ html: false, linkify: true });

/** The report as an HTML page; user content, so it is served sandboxed. */
export function renderReportHtml(text: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Report</title></head><body>\n${markdown.render(text)}</body></html>\n`;
}

/**
 * Reads a file of the workspace through its resolver; a missing file, a directory or a path the
 * resolver refuses (a symlink leaving the workspace) is "not there".
 */
async function readFileText(area: StorageArea, path: string): Promise<string | null> {
  const file = await area.resolve(path).catch((error: unknown) => {
    if (error instanceof DomainError && error.code === 'invalid_path') return null;
    throw error;
  });
  if (!file) return null;
  if (file.stat?.type !== 'file') return null;
  return text(await area.read(file));
}

/** `GET /workflows/{id}/report`: report.md from the workspace, as markdown or (`?format=html`) rendered. */
export function workflowReportRouter(deps: AppDeps): Router {
  const router = Router();
  router.get('/workflows/:id/report', requireAuth, async (req, res) => {
    const { workflow } = await authorizeWorkflow(deps.db, principalOf(req), req.params.id as string, 'workflow.read');
    const { format } = parseInput(ReportQuerySchema, { format: req.query.format }, 'query');
    const report = await readFileText(deps.storage.workspace(workflow.project_id, workflow.id), REPORT_FILE);
    if (report === null) throw notFound('the report does not exist yet');
    res.set({ 'Content-Security-Policy': 'sandbox', 'Cache-Control': 'no-store' });
    if (format === 'html') res.type('text/html; charset=utf-8').send(renderReportHtml(report));
    else res.type('text/markdown; charset=utf-8').send(report);
  });
  return router;
}
