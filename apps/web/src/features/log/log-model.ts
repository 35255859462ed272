import type { ExecutionLogEntry } from '@svc/protocol';
import { stripAnsi } from './ansi';
import { assembledOutput, type RunningCommand, type RunningCommands } from './running-commands';

/** The tool whose input is a shell command, run on the worker. */
export const COMMAND_TOOL = 'execute_on_worker';

/**
 * A stored log entry with the CONTRACT-V2 fields; optional so entries from a server (or a live event
 * parsed by a protocol package) without them still show.
 */
export type LogEntry = ExecutionLogEntry & {
  revision?: number;
  duration_ms?: number | null;
  command?: string | null;
};

export type LogItem =
  | { kind: 'entry'; entry: LogEntry; revision: number; stepIndex: number | null }
  | { kind: 'running'; command: RunningCommand; revision: number; stepIndex: number | null };

/** A YAML scalar's value as the API's YAML writer emits it (plain, single- or double-quoted). */
function yamlScalar(raw: string): string {
  const text = raw.trim();
  if (text.startsWith('"')) {
    try {
      return JSON.parse(text) as string;
    } catch {
      return text.slice(1, -1);
    }
  }
  if (text.startsWith("'")) return text.slice(1, -1).replace(/''/g, "'");
  return text;
}

/** A top-level field of the YAML input (plain, quoted or a `|` block), null when absent or not a scalar. */
function yamlField(yaml: string, key: string): string | null {
  const lines = yaml.split('\n');
  const at = lines.findIndex((line) => line.startsWith(`${key}:`));
  if (at === -1) return null;
  const value = lines[at]!.slice(key.length + 1).trim();
  if (!/^[|>][-+]?$/.test(value)) return yamlScalar(value);
  const block = indentedBelow(lines, at);
  const indent = Math.min(...block.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length));
  return block
    .map((l) => l.slice(Number.isFinite(indent) ? indent : 0))
    .join('\n')
    .trimEnd();
}

/** The lines under a top-level key (indented, or blank), up to the next top-level key. */
function indentedBelow(lines: readonly string[], at: number): string[] {
  const block: string[] = [];
  for (const line of lines.slice(at + 1)) {
    if (line !== '' && !line.startsWith(' ')) break;
    block.push(line);
  }
  return block;
}

/** A top-level list of scalars in the YAML input (`key:` then `  - item` lines); null when absent. */
function yamlList(yaml: string, key: string): string[] | null {
  const lines = yaml.split('\n');
  const at = lines.findIndex((line) => line === `${key}:`);
  if (at === -1) return null;
  return indentedBelow(lines, at)
    .map((line) => /^\s*- (.*)$/.exec(line)?.[1])
    .filter((item): item is string => item !== undefined)
    .map(yamlScalar);
}

/** The command text of the YAML input (`command: ...`, also as a `|` block), for entries without `command`. */
const commandFromYaml = (yaml: string) => yamlField(yaml, 'command');

/** The entry the server writes when a question's deadline gave its default answer (decision 0079). */
export const QUESTION_TIMEOUT_TOOL = 'question_timeout';

/** How the tool filter names a tool: the server's own entries in words, a tool by its name. */
export const toolLabel = (name: string) => (name === QUESTION_TIMEOUT_TOOL ? 'Question timed out' : name);

export interface TimedOutQuestion {
  question: string;
  choices: string[] | null;
  /** the default the question was answered with */
  answer: string;
  deadline: string;
}

/** What a `question_timeout` entry's input says; null for other entries (or an input it cannot read). */
export function timedOutQuestionOf(entry: LogEntry): TimedOutQuestion | null {
  if (entry.tool_name !== QUESTION_TIMEOUT_TOOL) return null;
  const question = yamlField(entry.tool_input, 'question');
  const answer = yamlField(entry.tool_input, 'default');
  const deadline = yamlField(entry.tool_input, 'deadline');
  if (question === null || answer === null || deadline === null) return null;
  return { question, choices: yamlList(entry.tool_input, 'choices'), answer, deadline };
}

/** The command an entry ran (its `command` field, or read from its input), null for other tools. */
export function commandOf(entry: LogEntry): string | null {
  if (entry.command != null) return entry.command;
  return entry.tool_name === COMMAND_TOOL ? commandFromYaml(entry.tool_input) : null;
}

/** Whether a stored entry is the one a live command ended in (`afterSeq`: the last entry before it). */
function isStoredResultOf(entry: LogEntry, running: RunningCommand, afterSeq: number): boolean {
  if (entry.seq <= afterSeq || entry.tool_name !== COMMAND_TOOL) return false;
  // a page that joined mid-command knows neither step nor text: the next stored command is its result
  if (running.command === null) return true;
  return entry.step_index === running.stepIndex && commandOf(entry) === running.command;
}

/**
 * Stored entries (in seq order) and live commands as one list: a live command is replaced by its stored
 * entry once that arrives, and otherwise stands where it started. `afterSeq` gives, per call id, the
 * last entry seq the page had when it first heard of the command (its stored entry comes later).
 */
export function logItems(
  entries: readonly LogEntry[],
  running: RunningCommands,
  afterSeq: ReadonlyMap<string, number> = new Map(),
): LogItem[] {
  const claimed = new Set<number>();
  const live: { command: RunningCommand; after: number }[] = [];
  for (const command of running.values()) {
    const after = afterSeq.get(command.callId) ?? 0;
    const result = entries.find((e) => !claimed.has(e.seq) && isStoredResultOf(e, command, after));
    if (result) claimed.add(result.seq);
    else live.push({ command, after });
  }
  const items: LogItem[] = [];
  let revision = 0;
  let next = 0;
  const pushLive = (upToSeq: number) => {
    while (next < live.length && live[next]!.after < upToSeq) {
      const { command } = live[next++]!;
      items.push({ kind: 'running', command, revision, stepIndex: command.stepIndex });
    }
  };
  live.sort((a, b) => a.after - b.after);
  for (const entry of entries) {
    pushLive(entry.seq);
    revision = entry.revision ?? revision;
    items.push({ kind: 'entry', entry, revision, stepIndex: entry.step_index });
  }
  pushLive(Number.POSITIVE_INFINITY);
  return items;
}

export interface LogFilter {
  /** case-insensitive text in the tool, command, input or output */
  query: string;
  errorsOnly: boolean;
  /** a tool name, or null for every tool */
  tool: string | null;
  /** a 0-based step index, or null for every step */
  step: number | null;
}

export const NO_FILTER: LogFilter = { query: '', errorsOnly: false, tool: null, step: null };

export function isError(item: LogItem): boolean {
  if (item.kind === 'entry') return item.entry.is_error;
  const exit = item.command.finished?.exitCode;
  return exit !== undefined && exit !== null && exit !== 0;
}

const toolOf = (item: LogItem) => (item.kind === 'entry' ? item.entry.tool_name : COMMAND_TOOL);

function searchableText(item: LogItem): string {
  if (item.kind === 'running')
    return `${COMMAND_TOOL}\n${item.command.command ?? ''}\n${assembledOutput(item.command)}`;
  const { entry } = item;
  return `${entry.tool_name}\n${commandOf(entry) ?? ''}\n${entry.tool_input}\n${entry.output}`;
}

export function matchesFilter(item: LogItem, filter: LogFilter): boolean {
  if (filter.errorsOnly && !isError(item)) return false;
  if (filter.tool !== null && toolOf(item) !== filter.tool) return false;
  if (filter.step !== null && item.stepIndex !== filter.step) return false;
  const query = filter.query.trim().toLowerCase();
  return query === '' || stripAnsi(searchableText(item)).toLowerCase().includes(query);
}

/** A step group's heading: its 1-based step, or what a log entry outside every step belongs to. */
export const stepName = (index: number | null) => (index === null ? 'Planning and outside steps' : `Step ${index + 1}`);

/** Every tool name in the log, sorted, for the tool filter. */
export function toolNames(items: readonly LogItem[]): string[] {
  return [...new Set(items.map(toolOf))].sort();
}

export interface StepGroup {
  stepIndex: number | null;
  items: LogItem[];
}

export interface RevisionSection {
  revision: number;
  groups: StepGroup[];
}

/**
 * Consecutive items of one plan revision form a section (the page marks where feedback revised the
 * plan), and within it consecutive items of one step form a group, so the log stays in time order.
 */
export function groupLog(items: readonly LogItem[]): RevisionSection[] {
  const sections: RevisionSection[] = [];
  for (const item of items) {
    let section = sections[sections.length - 1];
    if (!section || section.revision !== item.revision) {
      section = { revision: item.revision, groups: [] };
      sections.push(section);
    }
    let group = section.groups[section.groups.length - 1];
    if (!group || group.stepIndex !== item.stepIndex) {
      group = { stepIndex: item.stepIndex, items: [] };
      section.groups.push(group);
    }
    group.items.push(item);
  }
  return sections;
}
