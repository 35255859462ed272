import type { Request, Response } from 'express';
import { AnswerRequestSchema, answersChoices } from '@svc/protocol';
import type { User, Workflow } from '@svc/db';
import type { AppDeps } from '../../deps';
import type { Handlers, OperationHandler } from '../../http/mount';
import { DomainError } from '../../domain/errors';
import type { LinkRefusal } from '../../notifications';
import { escapeHtml } from '../../notifications/messages';
import { choicesOf, notAChoice } from '../../engine';
import { answerFields, defaultNote } from './answer-form';

/**
 * The page of an answer link: no script, no outside resource, nothing framed; the token in its URL must
 * not leak through a Referer, and no cache keeps it.
 */
function sendPage(res: Response, status: number, title: string, body: string): void {
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Content-Security-Policy':
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    })
    .send(
      `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
        `<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)} · svc</title>` +
        `<style>body{font-family:system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;line-height:1.5}` +
        `pre{white-space:pre-wrap;background:#f4f4f5;padding:.75rem;border-radius:6px}textarea{width:100%;min-height:8rem}` +
        `button{margin:.5rem .5rem 0 0;padding:.5rem 1rem}fieldset{border:0;padding:0;margin:0}</style></head><body><main><h1>${escapeHtml(title)}</h1>\n${body}\n</main></body></html>`,
    );
}

const REFUSALS: Record<LinkRefusal, { status: number; text: string }> = {
  unknown: { status: 404, text: 'This answer link is not known. Open the run in svc to answer it.' },
  used: { status: 410, text: 'This answer link was used already: each link answers once.' },
  expired: { status: 410, text: 'This answer link has expired. Open the run in svc to answer it.' },
  question_closed: {
    status: 410,
    text: 'The question of this link was answered already or replaced by another one. Open the run in svc to see it.',
  },
};

/** `GET|POST /svc/answer/{token}`: the single-use answer link of a waiting-for-input mail (decision 0045). */
export function answerPageHandlers(deps: AppDeps): Handlers<'getAnswerPage' | 'postAnswerPage'> {
  const { notifications, db } = deps;
  const refuse = (res: Response, reason: LinkRefusal, workflowLink?: { id: string; project_id: string }) =>
    sendPage(
      res,
      REFUSALS[reason].status,
      'Answer link',
      `<p>${REFUSALS[reason].text}</p>${workflowLink ? runLink(workflowLink) : ''}`,
    );
  const runLink = (workflow: { id: string; project_id: string }) =>
    `<p><a href="${escapeHtml(notifications.notifier.runUrl(workflow))}">Open the run</a></p>`;

  // membership now: a person removed from the project cannot answer through an old mail
  const memberOf = (projectId: string, userId: string) =>
    db.projectMember.findFirst({
      where: { project_id: projectId, user_id: userId, project: { deleted_at: null } },
      include: { user: true },
    });
  const answerAs = async (workflow: Workflow, user: User, answer: string): Promise<boolean> => {
    try {
      // the same use case as POST /workflows/{id}/answer: the engine applies it, the worker is steered
      await deps.workflows.answer(workflow, user, answer);
      return true;
    } catch (error) {
      if (error instanceof DomainError && (error.code === 'conflict' || error.code === 'not_found')) return false;
      throw error;
    }
  };

  /** Showing the page does not use the link: mail scanners and previews open links. */
  const getAnswerPage: OperationHandler<'getAnswerPage'> = async (_req, res, input) => {
    const state = await notifications.links.inspect(input.params.token);
    if (!state.ok) return refuse(res, state.reason, state.link && runOf(state.link));
    const { workflow, question } = state;
    const action = `/svc/answer/${encodeURIComponent(input.params.token)}`;
    sendPage(
      res,
      200,
      `Run #${workflow.number} is waiting for your answer`,
      `<p><strong>${escapeHtml(workflow.title)}</strong></p><pre>${escapeHtml(question.question)}</pre>` +
        `<form method="post" action="${escapeHtml(action)}">` +
        `<input type="hidden" name="question_seq" value="${question.seq}">${answerFields(workflow)}</form>` +
        defaultNote(workflow) +
        `<p><small>This link answers once, as you, without signing in.</small></p>${runLink(workflow)}`,
    );
  };

  const postAnswerPage: OperationHandler<'postAnswerPage'> = async (req, res, input) => {
    const form = formOf(req);
    const state = await notifications.links.inspect(input.params.token);
    if (!state.ok) return refuse(res, state.reason, state.link && runOf(state.link));
    const { link, workflow, question } = state;
    // the page's question: an answer typed for an earlier question never answers a newer one
    if (form.question_seq !== String(question.seq)) return refuse(res, 'question_closed', workflow);
    const parsed = AnswerRequestSchema.safeParse({ answer: form.answer });
    if (!parsed.success)
      return sendPage(res, 400, 'Answer link', '<p>The answer is empty or too long. Go back and try again.</p>');
    // checked before the link is taken, so a refused answer leaves it usable (the lifecycle checks again)
    const choices = choicesOf(workflow);
    if (!answersChoices(choices, parsed.data.answer))
      return sendPage(
        res,
        400,
        'Answer link',
        `<p>${escapeHtml(sentence(notAChoice(choices!)))}. Go back and pick one.</p>`,
      );
    const member = await memberOf(workflow.project_id, link.user_id);
    if (!member) return sendPage(res, 403, 'Answer link', '<p>You are no longer a member of this run’s project.</p>');
    if (!(await notifications.links.take(link))) return refuse(res, 'used', workflow);
    if (!(await answerAs(workflow, member.user, parsed.data.answer))) return refuse(res, 'question_closed', workflow);
    sendPage(res, 200, 'Answer sent', `<p>Your answer was sent to run #${workflow.number}.</p>${runLink(workflow)}`);
  };

  return { getAnswerPage, postAnswerPage };
}

const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

const runOf = (link: { workflow_id: string; project_id: string }) => ({
  id: link.workflow_id,
  project_id: link.project_id,
});

/** The url-encoded form's two fields (a JSON body is read the same way). */
function formOf(req: Request): { answer: unknown; question_seq: string } {
  const body = (req.body ?? {}) as Record<string, unknown>;
  return {
    answer: body.answer,
    question_seq: typeof body.question_seq === 'string' ? body.question_seq : String(body.question_seq),
  };
}
