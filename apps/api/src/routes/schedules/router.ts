import type { Db, Prisma } from '@svc/db';
import { classifyDbError } from '@svc/db';
import { SCHEDULE_RECENT_TICKS, type PatchScheduleRequest } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import type { OperationHandler, Handlers } from '../../http/mount';
import type { Principal } from '../../auth/principal';
import { principalOf } from '../../auth/authenticate';
import { conflict, DomainError, notFound } from '../../domain/errors';
import { authorizeProject } from '../../policies/access';
import type { ProjectAction } from '../../policies/rules';
import { parseCron } from '../../schedules/cron';
import { presentSchedule } from '../../wire/schedule';
import { actorOf } from '../workflows/actions';

const withRecentTicks = {
  ticks: { orderBy: { tick_at: 'desc' }, take: SCHEDULE_RECENT_TICKS },
} satisfies Prisma.ScheduleInclude;

/** A schedule of a project the caller may act on; another project's answers like an unknown id. */
async function authorizedSchedule(db: Db, principal: Principal, id: string, action: ProjectAction) {
  const schedule = await db.schedule.findUnique({ where: { id } });
  if (!schedule) throw notFound('schedule not found');
  const access = await authorizeProject(db, principal, schedule.project_id, action).catch((error: unknown) => {
    throw error instanceof DomainError && error.code === 'not_found' ? notFound('schedule not found') : error;
  });
  return { schedule, ...access };
}

/** A name taken in the project is a conflict; anything else is the database's own error. */
async function uniqueName<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (classifyDbError(err) === 'conflict') throw conflict('the project has a schedule with that name');
    throw err;
  }
}

/** Schedules of a project: cron ticks that each create a run (schedules/runner.ts runs them). */
export function scheduleHandlers(
  deps: AppDeps,
): Handlers<
  | 'listSchedules'
  | 'createSchedule'
  | 'getSchedule'
  | 'updateSchedule'
  | 'deleteSchedule'
  | 'pauseSchedule'
  | 'resumeSchedule'
> {
  const { db, workflows, schedules } = deps;
  const reply = async (id: string, status = 200) => {
    const row = await db.schedule.findUniqueOrThrow({ where: { id }, include: withRecentTicks });
    return { status, body: presentSchedule(row) };
  };

  const listSchedules: OperationHandler<'listSchedules'> = async (req, res, input) => {
    const { project } = await authorizeProject(db, principalOf(req), input.params.id, 'schedule.read');
    const rows = await db.schedule.findMany({
      where: { project_id: project.id },
      orderBy: [{ name: 'asc' }, { id: 'asc' }],
      include: withRecentTicks,
    });
    const now = new Date();
    res.json(rows.map((row) => presentSchedule(row, now)));
  };

  const createSchedule: OperationHandler<'createSchedule'> = async (req, res, input) => {
    const principal = principalOf(req);
    const { project } = await authorizeProject(db, principal, input.params.id, 'schedule.manage');
    const actor = actorOf(principal);
    const body = input.body();
    const timezone = body.timezone ?? 'UTC';
    parseCron({ cron: body.cron, timezone });
    await workflows.checkTemplate(body.template);
    const workerId = await workflows.requestedWorker(body.worker_id);
    const created = await uniqueName(
      db.schedule.create({
        data: {
          project_id: project.id,
          name: body.name,
          cron: body.cron,
          timezone,
          requirement: body.requirement,
          template: body.template ?? null,
          worker_id: workerId,
          overlap: body.overlap ?? 'skip',
          catch_up: body.catch_up ?? 'none',
          created_by: actor.id,
          // Ticks count from now: none before the schedule existed is due.
          last_tick_at: new Date(),
        },
      }),
    );
    schedules.notify();
    const { body: schedule } = await reply(created.id);
    res.status(201).location(`/svc/api/schedules/${created.id}`).json(schedule);
  };

  const getSchedule: OperationHandler<'getSchedule'> = async (req, res, input) => {
    const { schedule } = await authorizedSchedule(db, principalOf(req), input.params.id, 'schedule.read');
    res.json((await reply(schedule.id)).body);
  };

  const updateSchedule: OperationHandler<'updateSchedule'> = async (req, res, input) => {
    const { schedule } = await authorizedSchedule(db, principalOf(req), input.params.id, 'schedule.manage');
    const patch = input.body();
    const data = await patchData(deps, schedule, patch);
    await uniqueName(db.schedule.update({ where: { id: schedule.id }, data }));
    schedules.notify();
    res.json((await reply(schedule.id)).body);
  };

  const deleteSchedule: OperationHandler<'deleteSchedule'> = async (req, res, input) => {
    const { schedule } = await authorizedSchedule(db, principalOf(req), input.params.id, 'schedule.manage');
    await db.schedule.deleteMany({ where: { id: schedule.id } });
    schedules.notify();
    res.status(204).end();
  };

  const setPaused = (paused: boolean): OperationHandler<'pauseSchedule' | 'resumeSchedule'> =>
    async function (req, res, input) {
      const { schedule } = await authorizedSchedule(db, principalOf(req), input.params.id, 'schedule.manage');
      // Resuming counts from now: the ticks that passed while paused are not run.
      const resumed = schedule.paused && !paused ? { last_tick_at: new Date() } : {};
      await db.schedule.update({ where: { id: schedule.id }, data: { paused, ...resumed } });
      schedules.notify();
      res.json((await reply(schedule.id)).body);
    };

  return {
    listSchedules,
    createSchedule,
    getSchedule,
    updateSchedule,
    deleteSchedule,
    pauseSchedule: setPaused(true),
    resumeSchedule: setPaused(false),
  };
}

type ScheduleRow = Prisma.ScheduleGetPayload<object>;

/** The columns a patch changes, checked like a create; a new cron or time zone counts from now. */
async function patchData(
  deps: AppDeps,
  schedule: ScheduleRow,
  patch: PatchScheduleRequest,
): Promise<Prisma.ScheduleUpdateInput> {
  const cron = patch.cron ?? schedule.cron;
  const timezone = patch.timezone ?? schedule.timezone;
  parseCron({ cron, timezone });
  if (patch.template) await deps.workflows.checkTemplate(patch.template);
  const workerId =
    patch.worker_id === undefined ? undefined : await deps.workflows.requestedWorker(patch.worker_id ?? undefined);
  const retimed = cron !== schedule.cron || timezone !== schedule.timezone;
  return {
    ...stripUndefined({
      name: patch.name,
      requirement: patch.requirement,
      template: patch.template,
      overlap: patch.overlap,
      catch_up: patch.catch_up,
      worker_id: workerId,
    }),
    cron,
    timezone,
    ...(retimed ? { last_tick_at: new Date() } : {}),
  };
}

function stripUndefined<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
