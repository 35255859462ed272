import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CommandOutputData } from '@svc/protocol';
import { advance, plan, scriptedAgent, type Call, type ScriptedHandler } from '@svc/scripted-llm';
import { eventually } from '@svc/test-kit';

/** The run's secret. `/ + = &` make its base64, URL-encoded and hex forms all differ from it. */
export const SECRET = { name: 'API_TOKEN', value: 's3cr/et+Va=l&u3x' } as const;

/**
 * Printed right before the first part of the split value: the masking stream holds back its longest
 * form's length, so a long run of it gets through and shows the first part was read.
 */
export const PAD = 'p'.repeat(200);
const SPLIT_AT = 6;
/** The command starts printing once the test (subscribed to live output by then) creates `ready`. */
const WAIT_FOR_READY = 'touch waiting; while [ ! -f ready ]; do sleep 0.05; done';

const urlEncode =
  'for ((i=0; i<${#API_TOKEN}; i++)); do c=${API_TOKEN:i:1}; case $c in [A-Za-z0-9._~-]) printf %s "$c";; *) printf %%%02X "\'$c";; esac; done';

/**
 * Prints the secret plainly, base64-encoded (also one byte into a longer encoding), hex, URL-encoded,
 * to stderr, and split across two writes with a wait between them (so across two reads of the pipe);
 * writes it into a workspace file (for the step diff). `$API_TOKEN` only: the value is never in the command.
 */
export const COMMAND = [
  WAIT_FOR_READY,
  'printf "plain=%s\\n" "$API_TOKEN"',
  'printf "base64=%s\\n" "$(printf %s "$API_TOKEN" | base64 -w0)"',
  'printf "shifted=%s\\n" "$(printf x%s "$API_TOKEN" | base64 -w0)"',
  `printf "hex=%s\\n" "$(printf %s "$API_TOKEN" | od -An -tx1 | tr -d ' \\n')"`,
  `printf "url=%s\\n" "$(${urlEncode})"`,
  'printf "stderr=%s\\n" "$API_TOKEN" >&2',
  'printf "token=%s\\n" "$API_TOKEN" > token.txt',
  `printf "split=%s%s" "${PAD}" "\${API_TOKEN:0:${SPLIT_AT}}"`,
  'while [ ! -f go ]; do sleep 0.05; done',
  `printf "%s\\n" "\${API_TOKEN:${SPLIT_AT}}"`,
].join('\n');

/** How the masked stdout of COMMAND ends, line by line (`shifted` keeps the characters the prefix shares). */
export const MASKED_STDOUT =
  /plain=\*\*\*\nbase64=\*\*\*\nshifted=[A-Za-z0-9+/]{0,3}\*\*\*[A-Za-z0-9+/=]{0,4}\nhex=\*\*\*\nurl=\*\*\*\nsplit=p{200}\*\*\*\n$/;

/** The value in every form the masking catches; for the probe's value also both parts of its split write. */
export function forms(value: string = SECRET.value): string[] {
  const base64 = Buffer.from(value).toString('base64');
  const parts = value === SECRET.value ? [value.slice(0, SPLIT_AT), value.slice(SPLIT_AT)] : [];
  return [
    value,
    base64,
    base64.replace(/\+/g, '-').replace(/\//g, '_'),
    Buffer.from(value).toString('hex'),
    encodeURIComponent(value),
    // one byte into a longer encoding: the characters the value alone determines
    Buffer.from(`x${value}`).toString('base64').slice(2, -4),
    ...parts,
  ];
}

/** Fails naming the form (and where it is) when `text` holds a value in any form. */
export function expectNoSecret(what: string, text: string, values: readonly string[] = [SECRET.value]): void {
  for (const value of values)
    for (const form of forms(value)) {
      const at = text.indexOf(form);
      if (at >= 0) throw new Error(`${what} holds "${form}": …${text.slice(Math.max(0, at - 300), at + 300)}…`);
    }
}

/**
 * The agent of the probe: one step that runs COMMAND (after `extraCommand`), reads the file it
 * wrote (its content enters the conversation), makes `moreCalls` and advances; a report that names the value itself
 * (the LLM cannot know it; the worker masks it anyway).
 */
export function agent(options: { extraCommand?: string; moreCalls?: Call[] } = {}): ScriptedHandler {
  const { extraCommand, moreCalls = [] } = options;
  const command = extraCommand ? `${extraCommand}\n${COMMAND}` : COMMAND;
  return scriptedAgent({
    planning: [plan('Use the token')],
    steps: {
      1: [
        { name: 'execute_on_worker', arguments: { command } },
        { name: 'read_file', arguments: { path: 'token.txt' } },
        ...moreCalls,
        advance('used the token'),
      ],
    },
    report: `# Report\n\nThe token ${SECRET.value} was used.`,
  });
}

/** The live output of the probe's command among a workflow's live output. */
export function output(events: readonly CommandOutputData[]): CommandOutputData[] {
  const started = events.find((e) => e.event === 'started' && e.command.includes(COMMAND));
  return started ? events.filter((e) => e.call_id === started.call_id) : [];
}

/** One stream of a command's live output, as the chunks a subscriber received. */
export function liveText(events: readonly CommandOutputData[], stream: 'stdout' | 'stderr'): string {
  return events.flatMap((e) => (e.event === 'output' && e.stream === stream ? [e.chunk] : [])).join('');
}

/** The offsets count the masked stream's UTF-8 bytes: each chunk starts where the one before ended. */
export function expectContiguousOffsets(events: readonly CommandOutputData[], stream: 'stdout' | 'stderr'): void {
  let expected = 0;
  for (const e of events) {
    if (e.event !== 'output' || e.stream !== stream) continue;
    if (e.offset !== expected) throw new Error(`${stream} chunk at offset ${e.offset}, expected ${expected}`);
    expected += Buffer.byteLength(e.chunk);
  }
}

/**
 * Drives COMMAND, waiting on events: once it waits (the caller has subscribed to its live output
 * by then), lets it print; once the live stdout shows the padding (so the first part of the split value
 * was read), lets it print the rest.
 */
export async function drive(workspaceDir: string, stdout: () => string): Promise<void> {
  const file = (name: string) => path.join(workspaceDir, name);
  await eventually(() => existsSync(file('waiting')), { what: 'the probe to wait for the test' });
  writeFileSync(file('ready'), '');
  await eventually(() => stdout().includes(`split=${PAD.slice(0, 100)}`), {
    what: 'the first part of the split value to be read',
    detail: stdout,
  });
  writeFileSync(file('go'), '');
}
