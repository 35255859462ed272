import type { Step } from '@svc/agent-core';
import { errorMessage } from '../util/logger';
import { AbortedError } from '../util/aborted';
import { writeWorkspaceFile } from '../workspace/safe-fs';
import { detailedPlan, reportMessages } from './context';
import type { RunContext } from './run-context';

export const REPORT_PATH = 'report.md';

/**
 * Where the built app is reached: `app_base_url/<workflow id>/` when the worker has one, else the
 * server's app link from the dispatch (the workspace served without a session), else (an older server)
 * the workspace file through the API.
 */
export function defaultAppUrl(
  config: { appBaseUrl: string | undefined; serverUrl: string },
  workflowId: string,
  serverAppUrl?: string | null,
): string {
  const id = encodeURIComponent(workflowId);
  if (config.appBaseUrl) return `${config.appBaseUrl}/${id}/`;
  if (serverAppUrl) return serverAppUrl;
  return `${config.serverUrl}/svc/api/workflows/${id}/files/index.html`;
}

const APP_URL_LINE = /^App URL:\s*<?(https?:\/\/[^\s>]+)>?\s*$/im;

/**
 * Makes sure the report names the app URL. A URL the agent reported on an `App URL:` line wins;
 * otherwise the expected URL is put right under the title.
 */
export function ensureAppUrl(report: string, appUrl: string): { text: string; appUrl: string } {
  const reported = APP_URL_LINE.exec(report)?.[1];
  if (reported) return { text: report, appUrl: reported };
  if (report.includes(appUrl)) return { text: report, appUrl };
  const lines = report.split('\n');
  const afterHeading = lines[0]?.startsWith('# ') ? 1 : 0;
  let at = afterHeading;
  while (lines[at]?.trim() === '') at++;
  const needsGap = afterHeading === 1 && at === afterHeading;
  lines.splice(at, 0, ...(needsGap ? [''] : []), `App URL: ${appUrl}`, '');
  return { text: lines.join('\n'), appUrl };
}

function fallbackReport(requirement: string, steps: readonly Step[], memo: readonly string[]): string {
  const title = requirement.split('\n')[0]?.trim() || 'Workflow report';
  return [
    `# ${title}`,
    '',
    '## What was done',
    '',
    detailedPlan(steps),
    '',
    '## Memos',
    '',
    memo.map((m) => `- ${m}`).join('\n') || 'None.',
    '',
  ].join('\n');
}

/**
 * Completed: the LLM writes the report (report prompt), the worker makes sure it names the app
 * URL, writes report.md into the workspace, uploads it and sends the `report` update. If the LLM
 * fails, a plain report built from the plan is used: the work is done and must not be lost.
 */
export async function writeReport(run: RunContext, appendix?: string): Promise<void> {
  const { deps, job, state } = run;
  const expectedUrl = defaultAppUrl(deps.config, job.workflowId, job.appUrl);
  const files = [...(await deps.workspace.snapshot(job.workflowId)).keys()].filter((f) => f !== REPORT_PATH).sort();
  let text: string;
  try {
    const reply = await run.llm.chat({
      phase: 'report',
      stepIndex: null,
      messages: reportMessages({
        systemPrompt: deps.prompts.report,
        requirement: job.requirement,
        steps: state.steps,
        memo: state.memo,
        appUrl: expectedUrl,
        workspaceFiles: files,
      }),
      signal: run.signal,
    });
    text = reply.message.content?.trim() || fallbackReport(job.requirement, state.steps, state.memo);
  } catch (err) {
    if (err instanceof AbortedError) throw err;
    deps.logger.warn(
      { workflowId: job.workflowId, error: errorMessage(err) },
      'report generation failed; writing a plain report',
    );
    text = fallbackReport(job.requirement, state.steps, state.memo);
  }
  // The LLM never saw a value, but report.md is a file the app shows: masked like everything sent.
  const withAppendix = appendix ? `${text.trimEnd()}\n\n${appendix.trim()}\n` : text;
  const report = ensureAppUrl(job.secrets?.mask(withAppendix) ?? withAppendix, expectedUrl);
  // report.md is the worker's own: a symlink a command put there is replaced, never written through.
  await writeWorkspaceFile(deps.workspace.dir(job.workflowId), REPORT_PATH, `${report.text.trimEnd()}\n`, (link) =>
    deps.logger.warn(
      { workflowId: job.workflowId, path: link },
      'a symbolic link was in the way of the report; replaced it, its target untouched',
    ),
  );
  await run.syncWorkspace();
  run.updates.report(REPORT_PATH, report.appUrl);
}
