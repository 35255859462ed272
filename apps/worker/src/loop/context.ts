import type { Step } from '@svc/agent-core';
import type { StepToolCall } from '@svc/protocol';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';

function memoSection(memo: readonly string[]): string {
  return memo.length === 0 ? '(none yet)' : memo.map((note) => `- ${note.replace(/\n/g, '\n  ')}`).join('\n');
}

/** Titles and statuses only: the outline's size does not depend on how far execution got. */
function planOutline(steps: readonly Step[]): string {
  return steps.map((step, index) => `${index + 1}. [${step.status}] ${step.title}`).join('\n');
}

/**
 * The run's secrets by name, so the agent can use them in commands; their values never reach it.
 * Empty when the run has none.
 */
function secretsSection(names: readonly string[] | undefined): string[] {
  if (!names || names.length === 0) return [];
  const list = names.map((name) => `- \`$${name}\``).join('\n');
  return [
    `# Secrets\n\nEvery command's environment holds these secrets as variables:\n\n${list}\n\n` +
      'Reference them by name in commands (for example `curl -H "Authorization: Bearer $NAME"`). Their values ' +
      'are never shown to you: output containing one shows `***` instead. Do not print them or write them into files.',
  ];
}

export interface StepContextInput {
  systemPrompt: string;
  requirement: string;
  /** names of the run's secrets (environment variables of every command) */
  secretNames?: readonly string[];
  steps: readonly Step[];
  memo: readonly string[];
  stepIndex: number;
  /** Something the step must know on this run only (e.g. why a timer resumed it). */
  note?: string;
  /** The tool calls the step made before it was cut off (decision 0063): replayed, then the note. */
  earlier?: readonly StepToolCall[];
}

/**
 * The opening of a step's fresh context: system prompt, requirement, plan outline, memos and the
 * current step. Nothing of earlier steps' conversations is included, so a step's prompt grows only
 * with the memos, never with the number of steps already run.
 */
export function stepMessages(input: StepContextInput): ChatCompletionMessageParam[] {
  const step = input.steps[input.stepIndex];
  if (!step) throw new RangeError(`step ${input.stepIndex} is not in a plan of ${input.steps.length} steps`);
  const sections = [
    `# Requirement\n\n${input.requirement}`,
    `# Plan\n\n${planOutline(input.steps)}`,
    `# Memos from earlier work\n\n${memoSection(input.memo)}`,
    ...secretsSection(input.secretNames),
    `# Current task: Step ${input.stepIndex + 1} of ${input.steps.length}\n\n## ${step.title}\n\n${step.description}`,
  ];
  const earlier = input.earlier ?? [];
  if (input.note && earlier.length === 0) sections.push(`# Note\n\n${input.note}`);
  sections.push('Work on this step only. Call advance_step with a summary when it is done and verified.');
  const opening: ChatCompletionMessageParam[] = [
    { role: 'system', content: input.systemPrompt },
    { role: 'user', content: sections.join('\n\n') },
  ];
  if (earlier.length === 0) return opening;
  return [...opening, ...replayed(earlier), { role: 'user', content: resumedAfter(input.note) }];
}

/** Earlier tool calls as the conversation had them: each call, then its result. */
function replayed(calls: readonly StepToolCall[]): ChatCompletionMessageParam[] {
  return calls.flatMap((call, index): ChatCompletionMessageParam[] => {
    const id = `replayed-${index + 1}`;
    return [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id, type: 'function', function: { name: call.tool_name, arguments: JSON.stringify(call.tool_input) } },
        ],
      },
      { role: 'tool', tool_call_id: id, content: call.output },
    ];
  });
}

const resumedAfter = (note: string | undefined) =>
  `${note ?? 'This step was interrupted and is resumed now.'}\n\nThe tool calls above ran before the interruption; ` +
  'do not repeat them. A command that was running at the interruption is not shown: check whether it finished ' +
  'before running it again. Go on with the step.';

export interface PlanningContextInput {
  systemPrompt: string;
  requirement: string;
  /** Template the workflow was created with, if any (its files are already in the workspace). */
  template: string | null | undefined;
  workspaceFiles: readonly string[];
  /** names of the run's secrets, for steps that need credentials */
  secretNames?: readonly string[];
}

const LISTED_FILES = 100;

export function planningMessages(input: PlanningContextInput): ChatCompletionMessageParam[] {
  const files =
    input.workspaceFiles.length === 0
      ? 'The workspace is empty.'
      : [
          ...input.workspaceFiles.slice(0, LISTED_FILES).map((f) => `- ${f}`),
          ...(input.workspaceFiles.length > LISTED_FILES
            ? [`… and ${input.workspaceFiles.length - LISTED_FILES} more`]
            : []),
        ].join('\n');
  const template = input.template
    ? `The workflow was created with the template "${input.template}"; its files are in the workspace.`
    : 'No template was chosen.';
  const user = [
    `# Requirement\n\n${input.requirement}`,
    `# Workspace\n\n${template}\n\n${files}`,
    ...secretsSection(input.secretNames),
    'Write the plan and submit it with submit_plan.',
  ];
  return [
    { role: 'system', content: input.systemPrompt },
    { role: 'user', content: user.join('\n\n') },
  ];
}

/** The plan with statuses, descriptions and summaries, for the revise and report prompts. */
export function detailedPlan(steps: readonly Step[]): string {
  if (steps.length === 0) return '(no plan yet)';
  return steps
    .map((step, index) => {
      const summary = step.summary ? `\n   Summary: ${step.summary.replace(/\n/g, '\n   ')}` : '';
      return `${index + 1}. [${step.status}] ${step.title}\n   ${step.description.replace(/\n/g, '\n   ')}${summary}`;
    })
    .join('\n');
}

export function reviseMessages(input: {
  systemPrompt: string;
  requirement: string;
  steps: readonly Step[];
  memo: readonly string[];
  feedback: string;
}): ChatCompletionMessageParam[] {
  const user = [
    `# Requirement\n\n${input.requirement}`,
    `# Current plan\n\n${detailedPlan(input.steps)}`,
    `# Memos\n\n${memoSection(input.memo)}`,
    `# Feedback from the user\n\n${input.feedback}`,
    'Submit the complete revised plan with submit_plan.',
  ];
  return [
    { role: 'system', content: input.systemPrompt },
    { role: 'user', content: user.join('\n\n') },
  ];
}

export function reportMessages(input: {
  systemPrompt: string;
  requirement: string;
  steps: readonly Step[];
  memo: readonly string[];
  appUrl: string;
  workspaceFiles: readonly string[];
}): ChatCompletionMessageParam[] {
  const files =
    input.workspaceFiles
      .slice(0, 200)
      .map((f) => `- ${f}`)
      .join('\n') || '(no files)';
  const user = [
    `# Requirement\n\n${input.requirement}`,
    `# Plan and results\n\n${detailedPlan(input.steps)}`,
    `# Memos\n\n${memoSection(input.memo)}`,
    `# Workspace files\n\n${files}`,
    `# App URL\n\n${input.appUrl}`,
    'Write the report.',
  ];
  return [
    { role: 'system', content: input.systemPrompt },
    { role: 'user', content: user.join('\n\n') },
  ];
}
