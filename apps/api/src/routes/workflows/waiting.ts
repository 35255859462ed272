import type { WaitingWorkflows } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import type { OperationHandler, Handlers } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { unauthenticated } from '../../domain/errors';
import { questionOptionFields } from '../../engine';

/** At most this many items; `count` is the whole number. */
const WAITING_ITEMS_MAX = 100;

/**
 * `GET /me/waiting`: the workflows waiting for an answer in the live projects the caller is a member of
 * (administrators too: only their own memberships), narrowed to an api token's project. Oldest question first.
 */
export function waitingHandlers(deps: AppDeps): Handlers<'getMyWaitingWorkflows'> {
  const getMyWaitingWorkflows: OperationHandler<'getMyWaitingWorkflows'> = async (req, res) => {
    const principal = principalOf(req);
    if (principal.kind !== 'user') throw unauthenticated('this token does not belong to a user');
    const where = {
      status: 'waiting_user',
      deleted_at: null,
      project: {
        deleted_at: null,
        members: { some: { user_id: principal.user.id } },
        ...(principal.projectId === null ? {} : { id: principal.projectId }),
      },
    };
    const [count, rows] = await Promise.all([
      deps.db.workflow.count({ where }),
      deps.db.workflow.findMany({
        where,
        orderBy: [{ updated_at: 'asc' }, { id: 'asc' }],
        take: WAITING_ITEMS_MAX,
        select: {
          id: true,
          project_id: true,
          number: true,
          title: true,
          question: true,
          question_choices: true,
          question_default: true,
          question_deadline: true,
          project: { select: { name: true } },
        },
      }),
    ]);
    const body: WaitingWorkflows = {
      count,
      items: rows.map((row) => ({
        id: row.id,
        project_id: row.project_id,
        project_name: row.project.name,
        number: row.number,
        title: row.title,
        question: row.question,
        ...questionOptionFields(row),
      })),
    };
    res.json(body);
  };
  return { getMyWaitingWorkflows };
}
