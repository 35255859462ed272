import type { ExecutionLogEntry } from '@svc/protocol';
import { plan, scriptedAgent } from '@svc/scripted-llm';
import { describeResult, E2E_TIMEOUT_MS, startStack, type CliStack } from '../support/stack';

/** What a hostile agent puts in its output: window title (OSC 0), clipboard (OSC 52), clear screen, cursor home. */
const OSC_TITLE = '\u001b]0;owned\u0007';
const OSC_CLIPBOARD = '\u001b]52;c;cm0gLXJmIH4=\u0007';
const CLEAR = '\u001b[2J\u001b[H';
/** 8-bit CSI (C1), DEL, a bare carriage return and a backspace */
const OTHERS = '\u009b31m\u007f\r\u0008';
const HOSTILE = `${OSC_TITLE}${OSC_CLIPBOARD}${CLEAR}${OTHERS}`;

/** The same sequences from a command: printf's octal escapes, C1 as its UTF-8 bytes. */
const PRINTF = String.raw`printf '\033]0;owned\007\033]52;c;cm0gLXJmIH4=\007\033[2J\033[H\302\23331m\177\r\010 tail\n'`;

/** Any control character but newline and tab, raw. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const agent = scriptedAgent({
  title: `Title ${OSC_TITLE}`,
  planning: [plan(`Print ${CLEAR}`, 'Finish')],
  steps: {
    1: [
      { name: 'execute_on_worker', arguments: { command: PRINTF } },
      { name: 'advance_step', arguments: { summary: 'printed' } },
    ],
  },
  report: `# Report ${OSC_CLIPBOARD}\n\nAll ${HOSTILE} done.\n`,
});

/**
 * Issue 21, finding 9: agent-provided text (command output, titles, plan steps, the report) reaches
 * the terminal through `svc run --follow`, `svc logs` and `svc report` with its control characters
 * escaped as `\u00XX`, never raw; `--json` output still parses back to the exact text.
 */
describe('svc writes no raw terminal escape sequences from agent output', () => {
  let stack: CliStack;
  let workflowId: string;

  beforeAll(async () => {
    stack = await startStack(agent);
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    await stack?.close();
  });

  const svc = async (args: string[]) => {
    const result = await stack.svc(args);
    if (result.code !== 0) throw new Error(`${describeResult(args, result)}\n${stack.diagnostics()}`);
    expect({ args, stdout: RAW_CONTROL.exec(result.stdout)?.[0] }).toEqual({ args, stdout: undefined });
    expect({ args, stderr: RAW_CONTROL.exec(result.stderr)?.[0] }).toEqual({ args, stderr: undefined });
    return result;
  };

  it(
    'run --follow: the plan, the title and the command output show their escapes as text',
    async () => {
      const { stdout } = await svc(['run', '-p', 'ci', 'Print something hostile', '--follow']);
      workflowId = /^workflow (\S+) completed/m.exec(stdout)![1]!;
      expect(stdout).toContain('title: Title \\u001b]0;owned\\u0007');
      expect(stdout).toContain('==> step 1/2: Print \\u001b[2J\\u001b[H');
      expect(stdout).toContain(
        '    | \\u001b]0;owned\\u0007\\u001b]52;c;cm0gLXJmIH4=\\u0007\\u001b[2J\\u001b[H\\u009b31m\\u007f\\u000d\\u0008 tail',
      );
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'logs and report: the same, and --json still carries the exact text',
    async () => {
      const logs = await svc(['logs', workflowId]);
      expect(logs.stdout).toContain('\\u001b]52;c;cm0gLXJmIH4=\\u0007');
      const report = await svc(['report', workflowId]);
      expect(report.stdout).toContain('# Report \\u001b]52;c;cm0gLXJmIH4=\\u0007');
      expect(report.stdout).toContain('\\u009b31m\\u007f\\u000d\\u0008 done.');

      const entries = JSON.parse((await svc(['--json', 'logs', workflowId])).stdout) as ExecutionLogEntry[];
      const printed = entries.find((e) => e.tool_name === 'execute_on_worker')!;
      expect(printed.output).toContain(`${OSC_TITLE}${OSC_CLIPBOARD}${CLEAR}\u009b31m\u007f\r\u0008 tail\n`);
      const asJson = JSON.parse((await svc(['--json', 'report', workflowId])).stdout) as { report: string };
      expect(asJson.report).toContain(`All ${HOSTILE} done.`);
    },
    E2E_TIMEOUT_MS,
  );
});
