import { ReportQuerySchema } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import type { OperationHandler, Handlers } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { parseInput } from '../../domain/validate';
import { DomainError, notFound } from '../../domain/errors';
import { authorizeWorkflow } from '../../policies/access';
import { streamResponse } from '../../http/stream-response';
import type { StorageArea, StorageTarget } from '../../services/storage';
import { sendMarkdownPage } from '../files/markdown-page';
import { maskedText } from '../../secrets/mask-text';

export const REPORT_FILE = 'report.md';

/**
 * The report file through the workspace's resolver; a missing file, a directory or a path the
 * resolver refuses (a symlink leaving the workspace) is "not there".
 */
async function resolveReport(area: StorageArea): Promise<StorageTarget | null> {
  const file = await area.resolve(REPORT_FILE).catch((error: unknown) => {
    if (error instanceof DomainError && error.code === 'invalid_path') return null;
    throw error;
  });
  return file?.stat?.type === 'file' ? file : null;
}

/**
 * `GET /workflows/{id}/report`: report.md from the workspace, as markdown (streamed) or (`?format=html`)
 * as a page: rendered off the event loop up to the render limit, escaped text above it.
 */
export function reportHandlers(deps: AppDeps): Handlers<'getReport'> {
  const getReport: OperationHandler<'getReport'> = async (req, res, input) => {
    const { workflow } = await authorizeWorkflow(deps.db, principalOf(req), input.params.id, 'workflow.read');
    const { format } = parseInput(ReportQuerySchema, { format: req.query.format }, 'query');
    const area = deps.storage.workspace(workflow.project_id, workflow.id);
    const report = await resolveReport(area);
    if (report === null) throw notFound('the report does not exist yet');
    res.set({ 'Content-Security-Policy': 'sandbox', 'Cache-Control': 'no-store' });
    const masker = await deps.secrets.runs.maskerOf(workflow.id);
    if (format === 'html') return sendMarkdownPage(req, res, area, report, 'Report', deps.markdown, masker);
    const size = report.stat?.size ?? 0;
    res.type('text/markdown; charset=utf-8');
    // masked, its length is not known before it is sent
    if (!masker) res.set('Content-Length', String(size));
    if (req.method === 'HEAD' || size === 0) return void res.end();
    const body = await area.read(report, { start: 0, end: size - 1 });
    await streamResponse(req, res, masker ? maskedText(body, masker) : body, 'serving the report');
  };
  return { getReport };
}
