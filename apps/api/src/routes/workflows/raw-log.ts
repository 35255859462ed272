import { CommandOutputNameSchema, RawLogQuerySchema } from '@svc/protocol';
import type { ExecutionLogEntry as LogRow, Db } from '@svc/db';
import type { AppDeps } from '../../deps';
import type { Handlers, OperationHandler } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { parseInput } from '../../domain/validate';
import { authorizeWorkflow } from '../../policies/access';
import { streamResponse } from '../../http/stream-response';
import { commandOutputPath, HeadTailBound, outputObject } from '../../services/command-outputs';
import type { StorageArea } from '../../services/storage';
import { maskedText } from '../../secrets/mask-text';
import { conflict } from '../../domain/errors';
import { checkDeclaredLength, pipeBody } from '../files/request-body';
import { guardUnreadBody } from '../files/operations';

/** The first line of a command's log output: how it ended (`[exit code 1]`, `[timed out after 60s …]`). */
const STATUS_LINE = /^\[[^\n]*\]\n/;
/** Log entries read per query while a raw log streams (the log itself may be any length). */
const ENTRIES_PER_READ = 200;

/**
 * `GET /workflows/{id}/log/raw` (a run's or one step's commands as a text download) and
 * `PUT /workflows/{id}/command-outputs/{name}` (a worker stores a command's whole output), decision 0073.
 */
export function rawLogHandlers(deps: AppDeps): Handlers<'getRawLog' | 'putCommandOutput'> {
  const getRawLog: OperationHandler<'getRawLog'> = async (req, res, input) => {
    const { workflow } = await authorizeWorkflow(deps.db, principalOf(req), input.params.id, 'workflow.read');
    const { step } = parseInput(RawLogQuerySchema, { step: req.query.step }, 'query');
    const area = deps.storage.commandOutputs(workflow.project_id);
    const masker = await deps.secrets.runs.maskerOf(workflow.id);
    // Steps are numbered from 1 where people read them (the run page), the query takes the index.
    const name = step === undefined ? `run-${workflow.number}.log` : `run-${workflow.number}-step-${step + 1}.log`;
    res.set({
      'Content-Type': 'text/plain; charset=utf-8',
      'Content-Disposition': `attachment; filename="${name}"`,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    if (req.method === 'HEAD') return void res.end();
    const text = rawLogText(deps.db, area, workflow.id, step);
    await streamResponse(req, res, masker ? maskedText(text, masker) : text, 'serving a raw log');
  };

  const putCommandOutput: OperationHandler<'putCommandOutput'> = (req, res, input) =>
    guardUnreadBody(req, res, async () => {
      const principal = principalOf(req);
      const { workflow } = await authorizeWorkflow(deps.db, principal, input.params.id, 'command_output.write');
      const name = parseInput(CommandOutputNameSchema, input.params.name, 'path.name');
      const { commandOutputMaxBytes } = deps.config.storage;
      // What arrives past the bound is counted and dropped, so the body itself has no size limit here.
      const bound = new HeadTailBound(commandOutputMaxBytes);
      const area = deps.storage.commandOutputs(workflow.project_id);
      const target = await area.resolve(commandOutputPath(workflow.id, name));
      // A job token is also the SVC_JWT of the run's commands, which can read the log's object names:
      // it may add an output, never replace one a log entry names (decision 0081).
      if (principal.kind === 'job' && target.stat !== null)
        throw conflict('a command output of that name is already stored');
      checkDeclaredLength(req, Number.MAX_SAFE_INTEGER);
      const written = await area.write(target, pipeBody(req, bound), {
        maxBytes: commandOutputMaxBytes + 64,
        sha256: false,
      });
      res.json({ name, size: written.size, received_bytes: bound.received });
    });

  return { getRawLog, putCommandOutput };
}

/** The entries of a run (or of one step) in seq order, read a page at a time. */
async function* logEntries(db: Db, workflowId: string, step: number | undefined): AsyncGenerator<LogRow> {
  let after = 0;
  for (;;) {
    const rows = await db.executionLogEntry.findMany({
      where: { workflow_id: workflowId, seq: { gt: after }, ...(step === undefined ? {} : { step_index: step }) },
      orderBy: { seq: 'asc' },
      take: ENTRIES_PER_READ,
    });
    yield* rows;
    if (rows.length < ENTRIES_PER_READ) return;
    after = rows.at(-1)!.seq;
  }
}

/** One line saying when and where an entry ran, then what ran: the command line, or the tool's name. */
function entryHeading(entry: LogRow): string {
  const startedAt = new Date(entry.created_at.getTime() - (entry.duration_ms ?? 0)).toISOString();
  const where = entry.step_index === null ? 'outside the plan' : `step ${entry.step_index + 1}`;
  const input = entry.tool_input as { command?: unknown } | null;
  const command = entry.tool_name === 'execute_on_worker' && typeof input?.command === 'string' ? input.command : null;
  const what = command === null ? `[${entry.tool_name}]` : `$ ${command}`;
  const status = entry.is_error ? ' (failed)' : '';
  return `[${startedAt}] ${where}${status}\n${what}\n`;
}

/**
 * The worker's status line (`[exit code 0]`) heading a command's cut output; the whole output goes
 * after it. Another tool's output (an MCP result) has none: a first line in brackets is its own.
 */
const statusLine = (entry: LogRow): string | undefined =>
  entry.tool_name === 'execute_on_worker' ? STATUS_LINE.exec(entry.output)?.[0] : undefined;

/**
 * The raw log as it is read: each entry's heading, then its whole output from the object store when
 * one was kept, else the stored (possibly cut) output. Objects are streamed, never held whole.
 */
async function* rawLogText(
  db: Db,
  area: StorageArea,
  workflowId: string,
  step: number | undefined,
): AsyncGenerator<Buffer> {
  for await (const entry of logEntries(db, workflowId, step)) {
    yield Buffer.from(entryHeading(entry));
    const object = entry.output_object && (await outputObject(area, workflowId, entry.output_object));
    const status = object && statusLine(entry);
    if (status) yield Buffer.from(status);
    const output = object ? ((await area.read(object)) as AsyncIterable<Buffer>) : [Buffer.from(entry.output)];
    let endsLine = true;
    for await (const bytes of output) {
      if (bytes.length === 0) continue;
      endsLine = bytes[bytes.length - 1] === 0x0a;
      yield bytes;
    }
    // The output as it was, then a blank line before the next entry.
    yield Buffer.from(endsLine ? '\n' : '\n\n');
  }
}
