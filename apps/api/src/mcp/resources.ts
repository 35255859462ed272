import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Resource } from '@modelcontextprotocol/sdk/types.js';
import type { AppDeps } from '../deps';
import type { Principal } from '../auth/principal';
import { DomainError, toDomainError } from '../domain/errors';
import { listableProjects } from '../reads/access';
import { resolveReport } from '../routes/workflows/report';
import { runResourceRead } from './results';
import { listWorkspace, readReport, readWorkspaceFile } from './workspace';

/** Runs whose reports `resources/list` names (the most recently changed the caller may see). */
const LISTED_REPORT_RUNS = 50;
/** Runs whose workspace files `resources/list` names, and how many files at most (list_files shows the rest). */
const LISTED_FILE_RUNS = 5;
const LISTED_FILES_MAX = 500;

export const reportUri = (runId: string) => `svc://runs/${encodeURIComponent(runId)}/report`;
export const fileUri = (runId: string, path: string) =>
  `svc://runs/${encodeURIComponent(runId)}/files/${path.split('/').map(encodeURIComponent).join('/')}`;

/** A variable of a matched URI, percent-decoded (`invalid_path` when it cannot be). */
function decoded(value: string | string[] | undefined): string {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  try {
    return decodeURIComponent(text);
  } catch {
    throw new DomainError('invalid_path', 'the URI is not valid percent-encoding');
  }
}

/**
 * Reports (`svc://runs/{run_id}/report`) and workspace files (`svc://runs/{run_id}/files/{+path}`): read
 * with the REST routes' actions (workflow.read, files.read). Listing names the reports of the caller's
 * recently changed runs and the files of the latest few; `list_files` lists any run's workspace.
 */
export function registerResources(server: McpServer, deps: AppDeps, principal: Principal): void {
  const { logger } = deps;

  /** The caller's most recently changed runs in the projects they may see (as GET /projects lists them). */
  const recentRuns = async (take: number) => {
    const projects = await listableProjects(deps, { principal, authError: null, userToken: null });
    return deps.db.workflow.findMany({
      where: { project_id: { in: projects.map((p) => p.id) }, deleted_at: null },
      orderBy: [{ updated_at: 'desc' }, { id: 'desc' }],
      take,
      select: { id: true, project_id: true, title: true, number: true },
    });
  };

  const reports = new ResourceTemplate('svc://runs/{run_id}/report', {
    list: () =>
      runResourceRead(logger, async () => {
        const resources: Resource[] = [];
        for (const run of await recentRuns(LISTED_REPORT_RUNS)) {
          const report = await resolveReport(deps.storage.workspace(run.project_id, run.id));
          if (report === null) continue;
          const name = `Report of run #${run.number}: ${run.title}`;
          resources.push({ uri: reportUri(run.id), name, mimeType: 'text/markdown' });
        }
        return { resources };
      }),
  });
  server.registerResource(
    'report',
    reports,
    { description: "A run's report (report.md in its workspace)", mimeType: 'text/markdown' },
    (uri, variables) =>
      runResourceRead(logger, async () => {
        const text = await readReport(deps, principal, decoded(variables.run_id));
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text }] };
      }),
  );

  const files = new ResourceTemplate('svc://runs/{run_id}/files/{+path}', {
    list: () =>
      runResourceRead(logger, async () => {
        const resources: Resource[] = [];
        for (const run of await recentRuns(LISTED_FILE_RUNS)) {
          const entries = await listWorkspace(deps, principal, run.id, '', true).catch((err: unknown) => {
            // a run deleted or hidden meanwhile is simply not listed
            if (toDomainError(err).code === 'not_found') return [];
            throw err;
          });
          for (const entry of entries) {
            if (entry.type !== 'file') continue;
            if (resources.length >= LISTED_FILES_MAX) return { resources };
            resources.push({
              uri: fileUri(run.id, entry.path),
              name: `#${run.number} ${entry.path}`,
              size: entry.size,
            });
          }
        }
        return { resources };
      }),
  });
  server.registerResource(
    'workspace-file',
    files,
    { description: "A file of a run's workspace (text, or base64 for other bytes)" },
    (uri, variables) =>
      runResourceRead(logger, async () => {
        const file = await readWorkspaceFile(deps, principal, decoded(variables.run_id), decoded(variables.path));
        const content =
          file.text === null
            ? { uri: uri.href, mimeType: file.mimeType, blob: file.base64 ?? '' }
            : { uri: uri.href, mimeType: file.mimeType, text: file.text };
        return { contents: [content] };
      }),
  );
}
