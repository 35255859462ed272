import { createHash, randomBytes } from 'node:crypto';
import type { AnswerLink, Db, Workflow } from '@svc/db';

export const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** 32 random bytes, base64url: the link's only secret. Only its SHA-256 is stored. */
const newToken = () => randomBytes(32).toString('base64url');
/** What a token looks like; anything else is refused before the database is asked. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** The question a run is waiting on: its text and the seq of the event that asked it. */
export interface OpenQuestion {
  seq: number;
  question: string;
}

/**
 * The run's open question, or null when it is not waiting for input. The seq is that of the latest
 * `workflow_status` event, the one that moved it to `waiting_user` (a new question always comes with a
 * new status event: a run leaves `waiting_user` before it can ask again).
 */
export async function openQuestionOf(db: Db, workflow: Pick<Workflow, 'id' | 'status' | 'question'>) {
  if (workflow.status !== 'waiting_user') return null;
  const event = await db.event.findFirst({
    where: { workflow_id: workflow.id, type: 'workflow_status' },
    orderBy: { seq: 'desc' },
    select: { seq: true, data: true },
  });
  const data = (typeof event?.data === 'string' ? JSON.parse(event.data) : event?.data) as { status?: string } | null;
  if (!event || data?.status !== 'waiting_user') return null;
  return { seq: event.seq, question: workflow.question ?? '' } satisfies OpenQuestion;
}

/** Why a link no longer answers. */
export type LinkRefusal = 'unknown' | 'used' | 'expired' | 'question_closed';

export type LinkState =
  | { ok: true; link: AnswerLink; workflow: Workflow; question: OpenQuestion }
  | { ok: false; reason: LinkRefusal; link?: AnswerLink };

export class AnswerLinks {
  constructor(private readonly deps: { db: Db; ttlMs: number; now?: () => Date }) {}

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  /** A new link for this person and question; the token is returned once, never stored. */
  async create(userId: string, workflow: Pick<Workflow, 'id' | 'project_id'>, question: OpenQuestion) {
    const token = newToken();
    await this.deps.db.answerLink.create({
      data: {
        token_sha256: sha256(token),
        user_id: userId,
        workflow_id: workflow.id,
        project_id: workflow.project_id,
        question_seq: question.seq,
        question_sha256: sha256(question.question),
        expires_at: new Date(this.now().getTime() + this.deps.ttlMs),
      },
    });
    return token;
  }

  /** Whether the link would answer now (the page's GET: looking does not use it). */
  async inspect(token: string): Promise<LinkState> {
    if (!TOKEN_PATTERN.test(token)) return { ok: false, reason: 'unknown' };
    const link = await this.deps.db.answerLink.findUnique({ where: { token_sha256: sha256(token) } });
    if (!link) return { ok: false, reason: 'unknown' };
    if (link.used_at) return { ok: false, reason: 'used', link };
    if (link.expires_at.getTime() <= this.now().getTime()) return { ok: false, reason: 'expired', link };
    const workflow = await this.deps.db.workflow.findFirst({ where: { id: link.workflow_id, deleted_at: null } });
    const question = workflow ? await openQuestionOf(this.deps.db, workflow) : null;
    if (
      !workflow ||
      !question ||
      question.seq !== link.question_seq ||
      sha256(question.question) !== link.question_sha256
    )
      return { ok: false, reason: 'question_closed', link };
    return { ok: true, link, workflow, question };
  }

  /**
   * Takes the link for one answer: marks it used in one conditional statement, so of two concurrent
   * posts one wins. False when it was used or expired meanwhile.
   */
  async take(link: AnswerLink): Promise<boolean> {
    const { count } = await this.deps.db.answerLink.updateMany({
      where: { id: link.id, used_at: null, expires_at: { gt: this.now() } },
      data: { used_at: this.now() },
    });
    return count === 1;
  }
}
