import type { Request } from 'express';
import { type LlmCallDetail, type StepDiff } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import type { OperationHandler, Handlers } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { authorizeWorkflow } from '../../policies/access';
import { notFound } from '../../domain/errors';
import { readStoredMessages } from '../../wire/llm-detail';

/** Most step diffs one answer holds (a step has one per revision that ran it). */
const MAX_DIFFS = 500;

/** The bulky parts of a workflow's history, read on demand: one LLM call's messages and reply, step diffs. */
export function workflowDetailHandlers(deps: AppDeps): Handlers<'getLlmCall' | 'listDiffs'> {
  const { db } = deps;
  const load = async (req: Request, id: string) =>
    (await authorizeWorkflow(db, principalOf(req), id, 'workflow.read')).workflow;

  const getLlmCall: OperationHandler<'getLlmCall'> = async (req, res, input) => {
    const workflow = await load(req, input.params.id);
    // The call must be this workflow's: another workflow's call id is as unknown as a made-up one.
    const detail = await db.llmCallDetail.findFirst({
      where: { call_id: input.params.call_id, call: { workflow_id: workflow.id } },
    });
    if (!detail) throw notFound('no stored detail for this LLM call (none was sent, or it was pruned)');
    const { messages, tools } = readStoredMessages(detail.messages);
    const body: LlmCallDetail = {
      id: detail.call_id,
      messages,
      reply: JSON.parse(detail.reply) as LlmCallDetail['reply'],
      ...(tools ? { tools } : {}),
      truncated: detail.truncated,
      created_at: detail.created_at.toISOString(),
    };
    const masker = await deps.secrets.runs.maskerOf(workflow.id);
    res.json(
      masker
        ? {
            ...body,
            messages: masker.maskJson(body.messages),
            reply: masker.maskJson(body.reply),
            ...(body.tools ? { tools: masker.maskJson(body.tools) } : {}),
          }
        : body,
    );
  };

  const listDiffs: OperationHandler<'listDiffs'> = async (req, res, input) => {
    const workflow = await load(req, input.params.id);
    const { step } = input.query();
    const rows = await db.stepDiff.findMany({
      where: { workflow_id: workflow.id, ...(step === undefined ? {} : { step_index: step }) },
      orderBy: { seq: 'asc' },
      take: MAX_DIFFS,
    });
    const body: StepDiff[] = rows.map((row) => ({
      step_index: row.step_index,
      revision: row.revision,
      files: row.files as StepDiff['files'],
      patch: row.patch,
      truncated: row.truncated,
      created_at: row.created_at.toISOString(),
    }));
    // stored masked by the ingest; masked again here for a secret added since
    const masker = await deps.secrets.runs.maskerOf(workflow.id);
    res.json(
      masker
        ? body.map((diff) => ({
            ...diff,
            patch: masker.mask(diff.patch),
            files: diff.files.map((file) => ({ ...file, path: masker.mask(file.path) })),
          }))
        : body,
    );
  };

  return { getLlmCall, listDiffs };
}
