import type { Db } from '@svc/db';
import type { StoredEvent } from '../../src/events';
import type { Steering } from '../../src/workflows';
import type { TestServer } from './server';

/** The JSON body of a response (tests read it loosely). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function body<T = any>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

export type SteeringCall = [method: keyof Steering, workflowId: string, ...args: string[]];

export interface RecordingSteering extends Steering {
  calls: SteeringCall[];
  /** what each call does after it is recorded (set per test) */
  behaviour: (call: SteeringCall) => Promise<void>;
  reset(): void;
}

/** Steering that records what the workflow lifecycle asked of dispatch (the worker side is another component). */
export function recordingSteering(): RecordingSteering {
  const calls: SteeringCall[] = [];
  const record = (call: SteeringCall) => {
    calls.push(call);
    return steering.behaviour(call);
  };
  const steering: RecordingSteering = {
    calls,
    behaviour: async () => undefined,
    reset() {
      calls.length = 0;
      steering.behaviour = async () => undefined;
    },
    workflowQueued: (id) => record(['workflowQueued', id]),
    generateTitle: (id) => record(['generateTitle', id]),
    answer: (id, answer) => record(['answer', id, answer]),
    feedback: (id, message) => record(['feedback', id, message]),
    cancel: (id) => record(['cancel', id]),
    retry: (id) => record(['retry', id]),
    pause: (id, interrupt) => record(['pause', id, String(interrupt)]),
    resumePaused: (id) => record(['resumePaused', id]),
  };
  return steering;
}

/** Every event the bus announces while the returned list is in use. */
export function captureEvents(server: TestServer): { events: StoredEvent[]; stop(): void } {
  const events: StoredEvent[] = [];
  const stop = server.deps.events.subscribe((event) => events.push(event));
  return { events, stop };
}

export async function createProject(server: TestServer, as: string, name = 'Shop'): Promise<{ id: string }> {
  const res = await server.request('/svc/api/projects', { method: 'POST', as, json: { name } });
  if (res.status !== 201) throw new Error(`create project: ${res.status} ${await res.text()}`);
  return body(res);
}

export async function addMember(
  server: TestServer,
  as: string,
  projectId: string,
  login: string,
  role: 'owner' | 'member' = 'member',
): Promise<void> {
  const res = await server.request(`/svc/api/projects/${projectId}/members`, {
    method: 'POST',
    as,
    json: { login, role },
  });
  if (res.status !== 202) throw new Error(`invite member: ${res.status} ${await res.text()}`);
  // Membership needs the invitee's consent: they accept the invitation (docs/decisions.md).
  const accepted = await server.request(`/svc/api/invitations/${projectId}/accept`, {
    method: 'POST',
    as: await server.login(login),
  });
  if (accepted.status !== 201) throw new Error(`accept invitation: ${accepted.status} ${await accepted.text()}`);
}

export async function createWorkflow(
  server: TestServer,
  as: string,
  projectId: string,
  requirement = 'Build a todo app',
): Promise<{ id: string; project_id: string }> {
  const res = await server.request(`/svc/api/projects/${projectId}/workflows`, {
    method: 'POST',
    as,
    json: { requirement },
  });
  if (res.status !== 201) throw new Error(`create workflow: ${res.status} ${await res.text()}`);
  return body(res);
}

/** Everything a resource route may write, as one comparable value: proves a refused request changed nothing. */
export async function dbState(db: Db): Promise<unknown> {
  const byId = { orderBy: { id: 'asc' as const } };
  return Promise.all([
    db.project.findMany({
      ...byId,
      select: { id: true, name: true, description: true, deleted_at: true, archive_path: true },
    }),
    db.projectMember.findMany({
      orderBy: [{ project_id: 'asc' }, { user_id: 'asc' }],
      select: { project_id: true, user_id: true, role: true },
    }),
    db.workflow.findMany({
      ...byId,
      select: { id: true, status: true, title: true, requirement: true, question: true, error: true, deleted_at: true },
    }),
    db.kbArticle.findMany({ ...byId, select: { id: true, title: true, content: true } }),
    db.schedule.findMany({ ...byId, select: { id: true, name: true, cron: true, paused: true } }),
    db.kbChunk.count(),
    db.setting.findMany({ orderBy: { key: 'asc' }, select: { key: true, value: true } }),
    db.event.count(),
    db.user.count(),
    db.trigger.findMany({
      ...byId,
      select: { id: true, name: true, secret: true, format: true, enabled: true, events: true, deleted_at: true },
    }),
    db.triggerDelivery.count(),
    db.secret.findMany({ ...byId, select: { id: true, name: true, ciphertext: true, visibility: true } }),
    db.secretEvent.count(),
  ]);
}

/** A snapshot row as the worker update path stores it (the run's highest stored seq goes up to it). */
export async function storeSnapshot(
  db: Db,
  workflowId: string,
  seq: number,
  snapshot: {
    phase: string;
    current_step: number | null;
    steps: { title: string; description: string; status: string }[];
    memo?: string[];
  },
): Promise<void> {
  await db.agentStateSnapshot.create({
    data: {
      workflow_id: workflowId,
      seq,
      phase: snapshot.phase,
      current_step: snapshot.current_step ?? 0,
      steps: snapshot.steps,
      memo: snapshot.memo ?? [],
    },
  });
  await db.workflow.updateMany({
    where: { id: workflowId, last_update_seq: { lt: seq } },
    data: { last_update_seq: seq },
  });
}
