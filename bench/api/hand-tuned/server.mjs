// The hand-tuned reference for `pnpm bench http` (issue 11): bare node:http doing the same work as
// svc's hot reads with nothing in between. It verifies the ES256 session cookie with `jose` against
// svc's JWKS (fetched once), runs the same lookups as svc through `pg` prepared statements or a
// `@libsql/client` connection on svc's own database, and writes the same JSON bodies.
//   DATABASE_URL=… SVC_URL=http://127.0.0.1:… PORT=… node bench/api/hand-tuned/server.mjs
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { repoRoot } from '../../lib/server-process.mjs';
import { sqliteQueries, postgresQueries } from './queries.mjs';

const requireApi = createRequire(join(repoRoot, 'apps/api/package.json'));
const { jwtVerify, createLocalJWKSet } = requireApi('jose');
const { stringify: yaml } = requireApi('yaml');
const { fromSnapshot, planFromState } = requireApi('@svc/agent-core');

const { DATABASE_URL, SVC_URL, PORT = '0', POOL_SIZE = '10' } = process.env;
const jwks = createLocalJWKSet(await (await fetch(`${SVC_URL}/svc/api/.well-known/jwks.json`)).json());
const db = DATABASE_URL.startsWith('file:')
  ? await sqliteQueries(DATABASE_URL)
  : postgresQueries(DATABASE_URL, Number(POOL_SIZE));

const PAGE = 100;
const iso = (value) => new Date(value).toISOString();
const send = (res, status, body) => {
  const json = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(json),
  });
  res.end(json);
};
const notFound = (what) => ({ status: 404, body: { error: { code: 'not_found', message: what } } });

async function userOf(cookie) {
  const match = /(?:^|;\s*)svc_session=([^;]+)/.exec(cookie ?? '');
  if (!match) return null;
  try {
    const { payload } = await jwtVerify(decodeURIComponent(match[1]), jwks, {
      algorithms: ['ES256'],
      issuer: 'svc',
      audience: 'svc',
    });
    if (payload.scope !== 'session') return null;
    return await db.user(payload.sub);
  } catch {
    return null;
  }
}

/** The workflow when the user is a member of its live project (svc answers 404 otherwise). */
async function readableWorkflow(user, id) {
  const workflow = await db.workflow(id);
  if (!workflow) return null;
  const role = await db.role(workflow.project_id, user.id);
  return role ? workflow : null;
}

const workerIdOf = (w) => w.assigned_worker_id ?? w.requested_worker_id;
const isoOrNull = (value) => (value === null || value === undefined ? null : iso(value));
const presentWorkflow = (w, workerName) => ({
  id: w.id,
  project_id: w.project_id,
  title: w.title,
  requirement: w.requirement,
  status: w.status,
  question: w.question,
  question_choices: w.question_choices === null ? null : JSON.parse(w.question_choices),
  question_default: w.question_default,
  question_deadline: isoOrNull(w.question_deadline),
  error: w.error,
  worker_id: workerIdOf(w),
  template: w.template,
  created_at: iso(w.created_at),
  updated_at: iso(w.updated_at),
  app_url: w.app_url,
  number: Number(w.number),
  rerun_of: w.rerun_of,
  started_at: isoOrNull(w.started_at),
  finished_at: isoOrNull(w.finished_at),
  plan_revision: Number(w.plan_revision),
  worker_name: workerName,
  app_link: w.app_key ? `${SVC_URL}/svc/apps/${w.app_key}/` : null,
  priority: Number(w.priority),
  concurrency_key: w.concurrency_key,
  concurrency_mode: w.concurrency_mode,
  requires: JSON.parse(w.requires),
  // the routing notice only while the run waits in the queue
  waiting_reason: w.assigned_worker_id === null && UNFINISHED.has(w.status) ? w.waiting_reason : null,
  trace_id: w.trace_id,
});

const UNFINISHED = new Set(['pending', 'planning', 'running', 'waiting_user']);

/** The plan as svc shows it: step times from plan_step_status events; no running step unless the run is running. */
function presentPlan(snapshot, status, stepEvents, revising) {
  const data = {
    phase: snapshot.phase,
    current_step: snapshot.phase === 'executing' ? snapshot.current_step : null,
    steps: snapshot.steps,
    memo: snapshot.memo,
    pending_question: snapshot.pending_question,
  };
  const unfinished = UNFINISHED.has(status);
  return planFromState(fromSnapshot(data)).map((step) => {
    const [started, finished] = stepTimes(stepEvents, step.index);
    const { status: stepStatus, interrupted } = shownStatus(revising && unfinished ? 'pending' : step.status, status);
    const info = {
      index: step.index,
      title: step.title,
      description: step.description,
      status: stepStatus,
      started_at: stepStatus === 'pending' && !interrupted ? null : isoOrNull(started),
      finished_at: stepStatus === 'done' ? isoOrNull(finished) : null,
    };
    if (interrupted) info.interrupted = interrupted;
    return info;
  });
}

/** [started, finished] of one step: its latest start, and its end after that start. */
function stepTimes(stepEvents, index) {
  let started = null;
  let finished = null;
  for (const event of stepEvents) {
    if (event.data.index !== index) continue;
    if (event.data.status === 'running') [started, finished] = [event.created_at, null];
    else if (event.data.status === 'done') finished = event.created_at;
  }
  return [started, finished];
}

/** A step shown running only while the run runs; a failed or cancelled run marks it interrupted. */
function shownStatus(stepStatus, status) {
  if (stepStatus !== 'running' || status === 'running') return { status: stepStatus, interrupted: undefined };
  const interrupted = status === 'failed' || status === 'cancelled' ? status : undefined;
  return { status: 'pending', interrupted };
}

const page = (rows, present) => ({
  items: rows.slice(0, PAGE).map(present),
  next_cursor: rows.length > PAGE ? Buffer.from(JSON.stringify([rows[PAGE - 1].seq])).toString('base64url') : null,
});

const WORKFLOW_ROUTES = {
  '': async (w) => presentWorkflow(w, workerIdOf(w) === null ? null : await db.workerName(workerIdOf(w))),
  '/plan': async (w) => {
    const [s, stepEvents, revising] = await Promise.all([
      db.latestSnapshot(w.id),
      db.stepEvents(w.id),
      db.revising(w.id),
    ]);
    return s ? presentPlan(s, w.status, stepEvents, revising) : [];
  },
  '/log': async (w) =>
    page(await db.logPage(w.id, PAGE + 1), (e) => ({
      id: e.id,
      seq: e.seq,
      step_index: e.step_index,
      tool_name: e.tool_name,
      tool_input: yaml(e.tool_input ?? {}, { lineWidth: 0 }),
      output: e.output,
      is_error: Boolean(e.is_error),
      revision: Number(e.revision),
      duration_ms: e.duration_ms === null ? null : Number(e.duration_ms),
      command:
        e.tool_name === 'execute_on_worker' && typeof e.tool_input?.command === 'string' ? e.tool_input.command : null,
      output_total_bytes: e.output_object === null ? null : Number(e.output_total_bytes),
      output_line_times: e.output_line_times === null ? null : JSON.parse(e.output_line_times),
      created_at: iso(e.created_at),
    })),
  '/llm-calls': async (w) => {
    const [rows, t] = await Promise.all([db.llmCallPage(w.id, PAGE + 1), db.llmCallTotals(w.id)]);
    return {
      ...page(rows, (c) => ({
        id: c.id,
        phase: c.phase,
        model: c.model,
        prompt_tokens: c.prompt_tokens,
        completion_tokens: c.completion_tokens,
        latency_ms: c.latency_ms,
        step_index: c.step_index,
        attempt: c.attempt,
        error: c.error,
        finish_reason: c.finish_reason,
        has_detail: Boolean(c.has_detail),
        created_at: iso(c.created_at),
      })),
      totals: {
        calls: Number(t.calls),
        prompt_tokens: Number(t.prompt_tokens ?? 0),
        completion_tokens: Number(t.completion_tokens ?? 0),
        latency_ms: Number(t.latency_ms ?? 0),
        unknown_usage_calls: Number(t.unknown_usage_calls),
        failed_calls: Number(t.failed_calls),
      },
    };
  },
};

async function route(req) {
  const user = await userOf(req.headers.cookie);
  if (!user) return { status: 401, body: { error: { code: 'unauthenticated', message: 'sign in first' } } };
  const url = req.url.split('?')[0];
  if (url === '/svc/api/projects') {
    const rows = await db.projects(user.id);
    return {
      status: 200,
      body: rows.map((p) => ({
        id: p.id,
        name: p.name,
        description: p.description,
        created_at: iso(p.created_at),
        updated_at: iso(p.updated_at),
        max_running: p.max_running === null ? null : Number(p.max_running),
        role: p.role,
      })),
    };
  }
  const match = /^\/svc\/api\/workflows\/([^/]+)(|\/plan|\/log|\/llm-calls)$/.exec(url);
  if (!match) return notFound('no such endpoint');
  const workflow = await readableWorkflow(user, decodeURIComponent(match[1]));
  if (!workflow) return notFound('workflow not found');
  return { status: 200, body: await WORKFLOW_ROUTES[match[2]](workflow) };
}

const server = createServer((req, res) => {
  route(req).then(
    ({ status, body }) => send(res, status, body),
    (error) => {
      console.error(error);
      send(res, 500, { error: { code: 'internal', message: 'internal error' } });
    },
  );
});
server.keepAliveTimeout = 5_000;
server.listen(Number(PORT), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
// Stopped by the bench when it is done: nothing to flush, the database belongs to svc.
process.on('SIGTERM', () => process.exit(0));
