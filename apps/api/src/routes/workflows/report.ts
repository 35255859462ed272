import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Router } from 'express';
import MarkdownIt from 'markdown-it';
import { ReportQuerySchema } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import { principalOf, requireAuth } from '../../auth/authenticate';
import { parseInput } from '../../domain/validate';
import { notFound } from '../../domain/errors';
import { authorizeWorkflow } from '../../policies/access';
import { workflowWorkspaceDir } from '../../services/workspace-paths';

export const REPORT_FILE = 'report.md';

// html: false escapes raw HTML in the report instead of passing it through.
const markdown = new MarkdownIt({ html: false, linkify: true });

/** The report as an HTML page; user content, so it is served sandboxed. */
export function renderReportHtml(text: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Report</title></head><body>\n${markdown.render(text)}</body></html>\n`;
}

/** Reads a regular file; a missing file, a directory or a symlink (which could leave the workspace) is "not there". */
async function readRegularFile(path: string): Promise<string | null> {
  const stat = await lstat(path).catch(() => null);
  if (!stat?.isFile()) return null;
  return readFile(path, 'utf8');
}

/** `GET /workflows/{id}/report`: report.md from the workspace, as markdown or (`?format=html`) rendered. */
export function workflowReportRouter(deps: AppDeps): Router {
  const router = Router();
  router.get('/workflows/:id/report', requireAuth, async (req, res) => {
    const { workflow } = await authorizeWorkflow(deps.db, principalOf(req), req.params.id as string, 'workflow.read');
    const { format } = parseInput(ReportQuerySchema, { format: req.query.format }, 'query');
    const text = await readRegularFile(
      join(workflowWorkspaceDir(deps.config.dataDir, workflow.project_id, workflow.id), REPORT_FILE),
    );
    if (text === null) throw notFound('the report does not exist yet');
    res.set({ 'Content-Security-Policy': 'sandbox', 'Cache-Control': 'no-store' });
    if (format === 'html') res.type('text/html; charset=utf-8').send(renderReportHtml(text));
    else res.type('text/markdown; charset=utf-8').send(text);
  });
  return router;
}
