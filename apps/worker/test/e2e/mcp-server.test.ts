import { plan, scriptedAgent } from '@svc/scripted-llm';
import { connectMcp, outcomeOf, toolJson, type McpClient } from '@svc/test-kit';
import { ApiClient } from '../support/e2e-client';
import { writingTheAnswer } from '../support/answer-writer';
import { E2E_TIMEOUT_MS, startStack, type Stack } from '../support/e2e-stack';

const QUESTION = 'Which colour should the heading have?';
const REPORT = '# Report\n\nThe heading is teal.';

const agent = scriptedAgent({
  title: 'Coloured heading',
  planning: [plan('Choose the colour', 'Write the page')],
  steps: { 1: [{ name: 'ask_user', arguments: { question: QUESTION } }] },
  report: REPORT,
});

/** Step 1 asks; once answered, it writes the answer it was given (its tool result) to colour.txt. */
const handler = writingTheAnswer(agent);

/** A person's api token, from POST /svc/api/token as `svc token` gets it. */
const apiToken = async (person: ApiClient) => (await person.json<{ token: string }>('/token', { json: {} })).token;

describe('a whole run driven through /svc/mcp by an SDK client', () => {
  let stack: Stack;
  let alice: McpClient;
  let stranger: McpClient;

  beforeAll(async () => {
    stack = await startStack({ handler });
    alice = await connectMcp(stack.api.url, await apiToken(stack.alice));
    stranger = await connectMcp(stack.api.url, await apiToken(await ApiClient.signIn(stack.api.url, 'mallory')));
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    await alice?.close();
    await stranger?.close();
    await stack?.close();
  });

  /** follow_run with a progress token: the run's events as progress messages, then the run. */
  const follow = async (runId: string) => {
    const progress: string[] = [];
    const result = await alice.callTool({ name: 'follow_run', arguments: { run_id: runId } }, undefined, {
      onprogress: (p) => void progress.push(p.message ?? ''),
      resetTimeoutOnProgress: true,
      timeout: E2E_TIMEOUT_MS - 15_000,
    });
    return { run: toolJson(result), progress };
  };

  it(
    'starts a run, follows it to the question, answers, follows it to the end, reads the report and a file',
    async () => {
      const projects = toolJson(await alice.callTool({ name: 'list_projects', arguments: {} }));
      expect(projects.items.map((p: { id: string }) => p.id)).toEqual([stack.projectId]);
      const requirement = 'Make a page with a coloured heading.';
      const started = toolJson(
        await alice.callTool({ name: 'start_run', arguments: { project_id: stack.projectId, requirement } }),
      );
      const id: string = started.id;
      expect(started).toMatchObject({ requirement, project_id: stack.projectId });

      const asked = await follow(id);
      expect(asked.run).toMatchObject({ id, status: 'waiting_user', question: QUESTION });
      expect(asked.progress).toEqual(
        expect.arrayContaining([
          'title: Coloured heading',
          'step 1 running: Choose the colour',
          'tool submit_plan',
          `status waiting_user: ${QUESTION}`,
        ]),
      );
      expect(asked.run.events).toBe(asked.progress.length);
      expect(asked.progress.at(-1)).toBe(`status waiting_user: ${QUESTION}`);

      // Someone else's token sees nothing of it and changes nothing.
      const hidden = { run_id: id };
      expect(toolJson(await stranger.callTool({ name: 'list_projects', arguments: {} })).items).toEqual([]);
      for (const [name, args] of [
        ['list_runs', { project_id: stack.projectId }],
        ['get_run', hidden],
        ['get_log', hidden],
        ['answer', { ...hidden, answer: 'red' }],
        ['cancel_run', hidden],
        ['follow_run', hidden],
      ] as const)
        expect([name, outcomeOf(await stranger.callTool({ name, arguments: args }))]).toEqual([name, 'not_found']);
      await expect(stranger.readResource({ uri: `svc://runs/${id}/report` })).rejects.toThrow(/not_found: /);
      expect((await stranger.listResources()).resources).toEqual([]);

      const answered = toolJson(await alice.callTool({ name: 'answer', arguments: { run_id: id, answer: 'teal' } }));
      expect(answered).toMatchObject({ status: 'running', question: null });
      const finished = await follow(id);
      expect(finished.run).toMatchObject({ id, status: 'completed' });
      expect(finished.progress).toEqual(expect.arrayContaining(['file written: colour.txt', 'status completed']));

      const run = toolJson(await alice.callTool({ name: 'get_run', arguments: { run_id: id } }));
      expect(run).toMatchObject({ status: 'completed', title: 'Coloured heading', progress: { done: 2, total: 2 } });
      const plan = toolJson(await alice.callTool({ name: 'get_plan', arguments: { run_id: id } }));
      expect(plan.steps.map((s: { status: string }) => s.status)).toEqual(['done', 'done']);
      // the log a page at a time: the plan, then the question with its answer
      const first = toolJson(await alice.callTool({ name: 'get_log', arguments: { run_id: id, limit: 1 } }));
      expect(first.items.map((e: { tool_name: string }) => e.tool_name)).toEqual(['submit_plan']);
      const second = toolJson(
        await alice.callTool({ name: 'get_log', arguments: { run_id: id, limit: 1, cursor: first.next_cursor } }),
      );
      expect(second.items).toEqual([
        expect.objectContaining({ tool_name: 'ask_user', output: 'The user answered: teal' }),
      ]);

      // the agent's report, as the worker wrote it (with the run's app link)
      const report = await alice.callTool({ name: 'get_report', arguments: { run_id: id } });
      const reportText = (report.content as { type: string; text: string }[])[0]!.text;
      expect(reportText).toMatch(/^# Report\n[\s\S]*The heading is teal\.\n?$/);
      const reportResource = await alice.readResource({ uri: `svc://runs/${id}/report` });
      expect(reportResource.contents).toEqual([
        { uri: `svc://runs/${id}/report`, mimeType: 'text/markdown', text: reportText },
      ]);
      const listed = (await alice.listResources()).resources.map((r) => r.uri);
      expect(listed).toEqual(expect.arrayContaining([`svc://runs/${id}/report`, `svc://runs/${id}/files/colour.txt`]));
      const colour = await alice.readResource({ uri: `svc://runs/${id}/files/colour.txt` });
      expect(colour.contents).toEqual([
        { uri: `svc://runs/${id}/files/colour.txt`, mimeType: 'text/plain', text: 'teal' },
      ]);
    },
    E2E_TIMEOUT_MS,
  );
});
