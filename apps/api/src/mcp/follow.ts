import {
  hasProjectChange,
  PROJECT_ACCESS_CHANGES,
  TERMINAL_WORKFLOW_STATUSES,
  type WorkflowStatus,
} from '@svc/protocol';
import type { Workflow } from '@svc/db';
import type { AppDeps } from '../deps';
import type { Principal } from '../auth/principal';
import { DomainError, toDomainError } from '../domain/errors';
import { authorizeWorkflow } from '../policies/access';
import { WorkflowSubscription, type EventSubscriber, type StoredEvent } from '../events';
import { streamOwner } from '../http/stream-slots';
import { quotedChoices } from '../engine';

/** Where following a run stops: a person has to act (answer, resume) or the run is over. */
const WAITS_FOR_A_PERSON: readonly WorkflowStatus[] = ['waiting_user', 'paused'];
const STOPS_FOLLOWING = new Set<string>([...WAITS_FOR_A_PERSON, ...TERMINAL_WORKFLOW_STATUSES]);

/** One event as a progress notification: its seq (increasing) and a line a person or model can read. */
export interface FollowProgress {
  seq: number;
  message: string;
}

export interface FollowOutcome {
  workflow: Workflow;
  /** events reported while following (a worker's raw updates are not: the events derived from them are) */
  events: number;
  /** the last seq reported (the starting point when none was) */
  last_seq: number;
}

type Deps = Pick<AppDeps, 'db' | 'events' | 'streams' | 'tokens'>;

/**
 * Follows a run through the event bus the SSE and socket streams use (a WorkflowSubscription: every seq
 * once and in order, replayed after `sinceSeq`), reporting each event, until the run waits for a person
 * or finishes. Ends early when `signal` aborts (the client cancelled or went away), the caller's token is
 * revoked or the caller loses access (re-checked after membership changes, like the event streams).
 */
export async function followRun(
  deps: Deps,
  principal: Principal,
  runId: string,
  options: { sinceSeq?: number; signal: AbortSignal; report: (progress: FollowProgress) => void },
): Promise<FollowOutcome> {
  const { workflow } = await authorizeWorkflow(deps.db, principal, runId, 'workflow.read');
  const release = deps.streams.acquire(streamOwner(principal));
  const cleanups: (() => void)[] = [release];
  try {
    return await new Promise<FollowOutcome>((resolve, reject) => {
      let startSeq = Number.POSITIVE_INFINITY;
      let events = 0;
      let settled = false;
      const finish = (error?: DomainError) => {
        if (settled) return;
        settled = true;
        const ended = error ? Promise.reject(error) : currentRow(deps, workflow.id);
        ended.then(
          (row) => resolve({ workflow: row, events, last_seq: sub.lastSent }),
          (err: unknown) => reject(err),
        );
      };
      const subscriber: EventSubscriber = {
        sendEvent(event) {
          if (settled) return true;
          // a worker's raw update: the events derived from it (status, step, tool, LLM call) tell it
          if (event.type !== 'workflow_update') {
            events++;
            options.report({ seq: event.seq, message: describeEvent(event) });
          }
          if (event.seq > startSeq && stopsFollowing(event)) finish();
          return true;
        },
        roomToSend: async () => !settled,
        drop: (_code, reason) => finish(new DomainError('unavailable', `following stopped: ${reason}`)),
      };
      // Registered before the current seq is read, so nothing announced from here on can be missed.
      const sub = new WorkflowSubscription(subscriber, workflow.id, workflow.project_id, deps.events);
      cleanups.push(() => sub.cancel());
      const recheck = () => {
        authorizeWorkflow(deps.db, principal, workflow.id, 'workflow.read').catch((err: unknown) =>
          finish(toDomainError(err)),
        );
      };
      cleanups.push(
        deps.events.subscribe((event) => {
          if (event.workflow_id === workflow.id) sub.onEvent(event);
          if (event.project_id === workflow.project_id && hasProjectChange(event, PROJECT_ACCESS_CHANGES)) recheck();
        }),
      );
      cleanups.push(
        deps.tokens.onRevoked((jti) => {
          if (jti === principal.claims.jti) finish(new DomainError('unauthenticated', 'token revoked'));
        }),
      );
      const onAbort = () => finish(new DomainError('unavailable', 'following cancelled by the client'));
      options.signal.addEventListener('abort', onAbort);
      cleanups.push(() => options.signal.removeEventListener('abort', onAbort));
      if (options.signal.aborted) return onAbort();
      void (async () => {
        const now = await deps.db.workflow.findUnique({
          where: { id: workflow.id },
          select: { status: true, last_event_seq: true },
        });
        startSeq = now?.last_event_seq ?? 0;
        const since = options.sinceSeq;
        await sub.begin(since === undefined || since > startSeq ? startSeq : since);
        if (!now || STOPS_FOLLOWING.has(now.status)) finish();
      })().catch((err: unknown) => finish(toDomainError(err)));
    });
  } finally {
    for (const cleanup of cleanups.reverse()) cleanup();
  }
}

async function currentRow(deps: Deps, id: string): Promise<Workflow> {
  const row = await deps.db.workflow.findUnique({ where: { id } });
  if (!row) throw new DomainError('not_found', 'workflow not found');
  return row;
}

function stopsFollowing(event: StoredEvent): boolean {
  if (event.type !== 'workflow_status') return false;
  return STOPS_FOLLOWING.has((event.data as { status: string }).status);
}

type Data = Record<string, unknown>;

/** How each kind of event reads as one line; the others by their type. */
const DESCRIBERS: Partial<Record<StoredEvent['type'], (data: Data) => string>> = {
  workflow_status: (data) => {
    const detail = data.question ?? data.error;
    return `status ${String(data.status)}${typeof detail === 'string' ? `: ${detail}` : ''}${questionOptions(data)}`;
  },
  plan_step_status: (data) => `step ${Number(data.index) + 1} ${String(data.status)}: ${String(data.title)}`,
  log_entry: (data) =>
    `tool ${String(data.tool_name)}${data.is_error ? ' failed' : ''}${
      typeof data.command === 'string' ? `: ${data.command}` : ''
    }`,
  workflow_title: (data) => `title: ${String(data.title)}`,
  workflow_action: (data) =>
    data.by_timeout === true
      ? `${String(data.action)} by svc with the default "${String(data.message)}": the question timed out`
      : `${String(data.action)} by ${(data.actor as { login?: string } | undefined)?.login ?? 'someone'}`,
  llm_call: (data) => `LLM call (${String(data.phase)})`,
  file_changed: (data) => `file ${data.deleted ? 'deleted' : 'written'}: ${String(data.path)}`,
};

/** A question's choices, default and deadline (decision 0079), as the tail of its status line. */
function questionOptions(data: Data): string {
  const parts = [
    Array.isArray(data.choices) ? `choices: ${quotedChoices(data.choices)}` : null,
    typeof data.default === 'string'
      ? `default ${JSON.stringify(data.default)}${typeof data.deadline === 'string' ? ` at ${data.deadline}` : ''}`
      : null,
  ].filter((part) => part !== null);
  return parts.length > 0 ? ` (${parts.join('; ')})` : '';
}

/** A one-line account of an event (the progress notification's message). */
export function describeEvent(event: StoredEvent): string {
  const describe = DESCRIBERS[event.type];
  return describe ? describe(event.data as Data) : event.type.replace(/_/g, ' ');
}
