import type { BrowserEvent, ExecutionLogEntry, Workflow } from '@svc/protocol';

/** Turns workflow events into lines for a person (plan changes, steps, tool calls with output, statuses). */
export class EventPrinter {
  private planKey = '';
  private stepCount = 0;

  constructor(
    private readonly write: (line: string) => void,
    private readonly verbose = false,
  ) {}

  print(event: BrowserEvent): void {
    switch (event.type) {
      case 'workflow_update': {
        const update = event.data;
        if (update.kind === 'snapshot') {
          const steps = update.data.steps;
          const key = JSON.stringify(steps.map((s) => [s.title, s.description]));
          if (key !== this.planKey && steps.length > 0) {
            this.planKey = key;
            this.stepCount = steps.length;
            this.write(`plan (${steps.length} step${steps.length === 1 ? '' : 's'}):`);
            steps.forEach((s, i) => this.write(`  ${i + 1}. ${s.title}`));
          }
        } else if (update.kind === 'report' && update.data.app_url) {
          this.write(`app: ${update.data.app_url}`);
        }
        return;
      }
      case 'plan_step_status': {
        const { index, title, status } = event.data;
        const of = this.stepCount ? `/${this.stepCount}` : '';
        if (status === 'running') this.write(`==> step ${index + 1}${of}: ${title}`);
        else if (status === 'done') this.write(`<== step ${index + 1}${of} done: ${title}`);
        else if (this.verbose) this.write(`    step ${index + 1}${of} pending: ${title}`);
        return;
      }
      case 'log_entry':
        for (const line of logEntryLines(event.data)) this.write(line);
        return;
      case 'workflow_status': {
        const { status, question, error } = event.data;
        if (status === 'waiting_user') this.write(`status: waiting_user: ${question ?? ''}`);
        else if (status === 'failed') this.write(`status: failed${error ? `: ${error}` : ''}`);
        else this.write(`status: ${status}`);
        return;
      }
      case 'workflow_title':
        this.write(`title: ${event.data.title}`);
        return;
      case 'llm_call':
        if (this.verbose) {
          const c = event.data;
          this.write(
            `    llm ${c.phase} ${c.model}: ${c.prompt_tokens ?? '?'} + ${c.completion_tokens ?? '?'} tokens, ${c.latency_ms} ms${c.error ? ` (error: ${c.error})` : ''}`,
          );
        }
        return;
      case 'file_changed':
        if (this.verbose) this.write(`    file ${event.data.deleted ? 'deleted' : 'changed'}: ${event.data.path}`);
        return;
      default:
        return;
    }
  }
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
        `answer it with: svc answer ${workflow.id} "<answer>" --follow   (or run with --answer-file)`
      );
    default:
      return `workflow ${workflow.id} is ${workflow.status}`;
  }
}
