import type {
  BrowserEvent,
  ExecutionLogEntry,
  LlmCallLog,
  PlanStepStatusEventData,
  Workflow,
  WorkflowStatusEventData,
  RepositoryPushedEventData,
} from '@svc/protocol';
import { choiceLines } from './choices';

/**
 * Turns workflow events into lines for a person (plan changes, steps, tool calls with output, statuses).
 *
 * A tool call that changes the plan (`submit_plan`, `advance_step`) is reported after the plan change it
 * made, so its log entry arrives after the step headers of the new state. The lines of a plan change are
 * therefore held until the next line is printed: a log entry of another step than the one the change
 * starts (the call that made it) is printed first, under the step it belongs to.
 */
export class EventPrinter {
  private planKey = '';
  private stepCount = 0;
  /** the lines of the latest plan change, not printed yet */
  private held: string[] = [];
  /** the step the held change starts (undefined: none, e.g. the last step done) */
  private heldStart: number | undefined;

  constructor(
    private readonly write: (line: string) => void,
    private readonly verbose = false,
  ) {}

  print(event: BrowserEvent): void {
    switch (event.type) {
      case 'workflow_update':
        if (event.data.kind === 'snapshot') return this.hold(this.planLines(event.data.data.steps));
        return this.emit(
          event.data.kind === 'report' && event.data.data.app_url ? [`app: ${event.data.data.app_url}`] : [],
        );
      case 'plan_step_status':
        if (event.data.status === 'running') this.heldStart = event.data.index;
        return this.hold(this.stepLines(event.data));
      case 'log_entry':
        return this.printLogEntry(event.data);
      default:
        return this.emit(otherLines(event, this.verbose));
    }
  }

  /** Prints what is still held (at the end of a follow). */
  flush(): void {
    const lines = this.held;
    this.held = [];
    this.heldStart = undefined;
    for (const line of lines) this.write(line);
  }

  private printLogEntry(entry: ExecutionLogEntry): void {
    const madeTheHeldChange = this.held.length > 0 && entry.step_index !== this.heldStart;
    if (!madeTheHeldChange) this.flush();
    for (const line of logEntryLines(entry)) this.write(line);
    this.flush();
  }

  private hold(lines: string[]): void {
    this.held.push(...lines);
  }

  private emit(lines: string[]): void {
    if (lines.length === 0) return;
    this.flush();
    for (const line of lines) this.write(line);
  }

  /** The plan listing when a snapshot brings a new plan (steps with other titles or descriptions). */
  private planLines(steps: readonly { title: string; description: string }[]): string[] {
    const key = JSON.stringify(steps.map((s) => [s.title, s.description]));
    if (key === this.planKey || steps.length === 0) return [];
    this.planKey = key;
    this.stepCount = steps.length;
    return [
      `plan (${steps.length} step${steps.length === 1 ? '' : 's'}):`,
      ...steps.map((s, i) => `  ${i + 1}. ${s.title}`),
    ];
  }

  private stepLines({ index, title, status }: PlanStepStatusEventData): string[] {
    const of = this.stepCount ? `/${this.stepCount}` : '';
    if (status === 'running') return [`==> step ${index + 1}${of}: ${title}`];
    if (status === 'done') return [`<== step ${index + 1}${of} done: ${title}`];
    return this.verbose ? [`    step ${index + 1}${of} pending: ${title}`] : [];
  }
}

/** The lines of the events that neither change the plan nor log a tool call. */
function otherLines(event: BrowserEvent, verbose: boolean): string[] {
  switch (event.type) {
    case 'workflow_status':
      return [statusLine(event.data)];
    case 'workflow_title':
      return [`title: ${event.data.title}`];
    case 'workflow_routing':
      return [routingLine(event.data.waiting_reason)];
    case 'llm_call':
      return verbose ? [llmCallLine(event.data)] : [];
    case 'repository_pushed':
      return [pushLine(event.data)];
    case 'file_changed':
      return verbose ? [`    file ${event.data.deleted ? 'deleted' : 'changed'}: ${event.data.path}`] : [];
    default:
      return [];
  }
}

const routingLine = (reason: string | null | undefined) =>
  reason ? `waiting: ${reason}` : 'waiting: a matching worker is online';

/** A run's push report (decision 0046): the branch pushed, or why not. */
function pushLine({ pushed, branch, head_sha, error }: RepositoryPushedEventData): string {
  return pushed
    ? `pushed ${branch} (${head_sha?.slice(0, 12) ?? '?'})`
    : `push of ${branch} failed: ${error ?? 'unknown'}`;
}

function statusLine({ status, question, choices, error }: WorkflowStatusEventData): string {
  if (status === 'waiting_user')
    return `status: waiting_user: ${question ?? ''}${choices?.length ? ` [${choices.join(' | ')}]` : ''}`;
  if (status === 'failed') return `status: failed${error ? `: ${error}` : ''}`;
  return `status: ${status}`;
}

function llmCallLine(c: LlmCallLog): string {
  const tokens = `${c.prompt_tokens ?? '?'} + ${c.completion_tokens ?? '?'} tokens`;
  return `    llm ${c.phase} ${c.model}: ${tokens}, ${c.latency_ms} ms${c.error ? ` (error: ${c.error})` : ''}`;
}

/** A log entry: the tool and its input on one line, the output indented below it. */
export function logEntryLines(entry: ExecutionLogEntry): string[] {
  const input = entry.tool_input.trim();
  const oneLine = input.includes('\n') ? '' : ` ${input}`;
  const lines = [`  ${entry.is_error ? '!' : '$'} ${entry.tool_name}${oneLine}`];
  if (!oneLine && input) for (const line of input.split('\n')) lines.push(`      ${line}`);
  const output = entry.output.replace(/\n$/, '');
  if (output) for (const line of output.split('\n')) lines.push(`    | ${line}`);
  return lines;
}

/** The closing summary of a followed workflow. */
export function summary(workflow: Workflow): string {
  switch (workflow.status) {
    case 'completed':
      return `workflow ${workflow.id} completed${workflow.app_url ? `: ${workflow.app_url}` : ''}`;
    case 'failed':
      return `workflow ${workflow.id} failed${workflow.error ? `: ${workflow.error}` : ''}`;
    case 'cancelled':
      return `workflow ${workflow.id} was cancelled`;
    case 'waiting_user':
      return (
        `workflow ${workflow.id} waits for an answer: ${workflow.question ?? ''}\n` +
        choiceLines(workflow)
          .map((line) => `${line}\n`)
          .join('') +
        `answer it with: svc answer ${workflow.id} "<answer>" --follow   (or run with --answer-file)`
      );
    default:
      return `workflow ${workflow.id} is ${workflow.status}`;
  }
}
