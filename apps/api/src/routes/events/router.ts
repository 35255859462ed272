import type { Request } from 'express';
import {
  EventStreamQuerySchema,
  hasProjectChange,
  isProjectEventType,
  LastEventIdSchema,
  PROJECT_ACCESS_CHANGES,
} from '@svc/protocol';
import type { AppDeps } from '../../deps';
import type { OperationHandler, Handlers } from '../../http/mount';
import type { Principal } from '../../auth/principal';
import { principalOf } from '../../auth/authenticate';
import { credentialProblem } from '../../auth/revalidate';
import { parseInput } from '../../domain/validate';
import { forbidden, toDomainError } from '../../domain/errors';
import { authorizeProject, authorizeWorkflow } from '../../policies/access';
import { WorkflowSubscription, type StoredEvent } from '../../events';
import { SSE_DEFAULTS, SseStream } from '../../http/sse';
import { streamOwner } from '../../http/stream-slots';

/**
 * Server-Sent Events for clients without a WebSocket (CI pipelines, `curl -N`, EventSource): one
 * workflow's events with replay after `Last-Event-ID` / `?since_seq=`, or a project's list-level events.
 * The same events, envelopes and authorization as the browser socket (ws/), through the same
 * `WorkflowSubscription`, so a stream sees every seq once and in order.
 */
export function eventHandlers(deps: AppDeps): Handlers<'streamWorkflowEvents' | 'streamProjectEvents'> {
  const { db } = deps;
  const options = () => ({ ...SSE_DEFAULTS, heartbeatMs: deps.config.sse.heartbeatMs });

  const streamWorkflowEvents: OperationHandler<'streamWorkflowEvents'> = async (req, res, input) => {
    const principal = principalOf(req);
    const { workflow } = await authorizeWorkflow(db, principal, input.params.id, 'workflow.read');
    const since = startingSeq(req);
    const release = deps.streams.acquire(streamOwner(principal));
    const stream = new SseStream(res, options(), true);
    stream.onClose(release);
    // Registered before the current seq is read, so nothing announced from here on can be missed.
    const sub = new WorkflowSubscription(stream, workflow.id, workflow.project_id, deps.events);
    const recheck = guard(deps, stream, principal, () =>
      authorizeWorkflow(db, principal, workflow.id, 'workflow.read'),
    );
    const stopLive = deps.events.subscribe((event) => {
      if (event.workflow_id === workflow.id) sub.onEvent(event);
      if (accessChanged(event, workflow.project_id)) recheck();
    });
    stream.onClose(() => {
      sub.cancel();
      stopLive();
    });
    stream.start(req, async () => recheck());
    stream.onClose(deps.serving.onDrain(() => stream.goAway()));
    try {
      const current =
        (await db.workflow.findUnique({ where: { id: workflow.id }, select: { last_event_seq: true } }))
          ?.last_event_seq ?? 0;
      // No starting point, or one from the future: the stream starts from now.
      await sub.begin(since === undefined || since > current ? current : since);
      stream.sendControl('subscribed', { workflow_id: workflow.id, last_seq: sub.lastSent });
    } catch (err) {
      failed(deps, stream, err);
    }
  };

  const streamProjectEvents: OperationHandler<'streamProjectEvents'> = async (req, res, input) => {
    const principal = principalOf(req);
    const { project } = await authorizeProject(db, principal, input.params.id, 'project.read');
    // Like the browser socket's project channel: for people (sessions and api tokens) only.
    if (principal.kind !== 'user') throw forbidden(`a ${principal.kind} token cannot follow a project's events`);
    const release = deps.streams.acquire(streamOwner(principal));
    const stream = new SseStream(res, options(), false);
    stream.onClose(release);
    const recheck = guard(deps, stream, principal, () => authorizeProject(db, principal, project.id, 'project.read'));
    const stopLive = deps.events.subscribe((event) => {
      if (event.project_id === project.id && isProjectEventType(event.type)) stream.sendEvent(event);
      if (accessChanged(event, project.id)) recheck();
    });
    const unwatch = deps.events.watchProject(project.id);
    stream.onClose(() => {
      stopLive();
      unwatch();
    });
    stream.start(req, async () => recheck());
    stream.onClose(deps.serving.onDrain(() => stream.goAway()));
    stream.sendControl('subscribed', { project_id: project.id });
  };

  return { streamWorkflowEvents, streamProjectEvents };
}

/** `Last-Event-ID` (an EventSource reconnecting) wins over `?since_seq=` (the first connection). */
function startingSeq(req: Request): number | undefined {
  const { since_seq } = parseInput(EventStreamQuerySchema, req.query, 'query');
  const header = req.get('last-event-id');
  if (header === undefined || header === '') return since_seq;
  return parseInput(LastEventIdSchema, header, 'Last-Event-ID');
}

const accessChanged = (event: StoredEvent, projectId: string) =>
  event.project_id === projectId && hasProjectChange(event, PROJECT_ACCESS_CHANGES);

/**
 * Keeps a stream honest about who reads it: it ends with an `error` event at once when its token is
 * revoked on this replica, and at the next heartbeat when the credential expired, was revoked elsewhere
 * or its user lost access, or when `authorize` (run again after membership changes and deletions) fails.
 * Returns the check, for the heartbeat and the access-change events.
 */
function guard(deps: AppDeps, stream: SseStream, principal: Principal, authorize: () => Promise<unknown>) {
  const stopRevoked = deps.tokens.onRevoked((jti) => {
    if (jti === principal.claims.jti) stream.fail({ code: 'unauthenticated', message: 'token revoked; sign in again' });
  });
  stream.onClose(stopRevoked);
  let running: Promise<void> | null = null;
  const check = async () => {
    const problem = await credentialProblem(principal, deps);
    if (problem !== null) return stream.fail({ code: 'unauthenticated', message: `${problem}; sign in again` });
    try {
      await authorize();
    } catch (err) {
      const error = toDomainError(err);
      if (error.code === 'internal') throw err;
      stream.fail({ code: error.code, message: error.message });
    }
  };
  return () => {
    if (!stream.open) return;
    // A database hiccup is not a revocation: the next check decides.
    running ??= check()
      .catch((err: unknown) => deps.logger.warn({ err }, 'event stream re-validation failed'))
      .finally(() => {
        running = null;
      });
  };
}

function failed(deps: AppDeps, stream: SseStream, err: unknown): void {
  const error = toDomainError(err);
  if (error.code === 'internal') deps.logger.error({ err }, 'event stream failed');
  stream.fail({ code: error.code, message: error.message });
}
