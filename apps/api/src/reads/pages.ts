import type { Workflow } from '@svc/db';
import type { HotReads } from './hot-reads';
import type { EncodedAnswer, PageCache } from './page-cache';
import { workflowViews } from './views';

/**
 * A log or LLM-calls page of an authorized workflow, encoded, from `cache` while its stamp holds (issue 11).
 * Log entries and LLM calls are only ever added, each raising the workflow's last_event_seq in the same
 * commit; what else changes an LLM-calls page is the retention sweep deleting details (it moves the
 * oldest). The stamp comes from the database (the workflow row was read by the authorization), before
 * the page's data, so a page is never answered from an entry older than what the request saw, on any
 * replica.
 */
export async function workflowPage(
  reads: HotReads,
  cache: PageCache,
  workflow: Workflow,
  view: 'log' | 'llm-calls',
  request: { query: unknown; rawQuery: string },
  encode: (body: unknown) => EncodedAnswer,
): Promise<EncodedAnswer> {
  const key = `${view} ${workflow.id}?${request.rawQuery}`;
  let stamp = String(workflow.last_event_seq);
  if (view === 'llm-calls') stamp += ` ${await reads.oldestLlmDetail()}`;
  const cached = cache.get(key);
  if (cached?.stamp === stamp) return cached;
  const page = encode(await workflowViews[view](reads, workflow, request.query));
  cache.set(key, { ...page, stamp });
  return page;
}
