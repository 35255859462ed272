import { advance, plan, scriptedAgent } from '@svc/scripted-llm';
import { startOtlpReceiver, TEST_PROVIDERS, type OtlpReceiver, type ReceivedSpan } from '@svc/test-kit';
import { E2E_TIMEOUT_MS, startStack, type Stack } from '../support/e2e-stack';

/** A requirement no span may carry: spans hold models, counts and names, never prompt or tool text. */
const REQUIREMENT = 'Write the file traced-secret-requirement.txt.';

interface LlmRecord {
  path: string;
  status: number;
  response: {
    id: string;
    model: string;
    choices: { finish_reason: string }[];
    usage: { prompt_tokens: number; completion_tokens: number };
  };
}

/**
 * Issue 26, decisions 0051 and 0052: a real API process and a real worker CLI export OTLP/HTTP to a
 * receiver; one run is one trace across both, rooted at the request that created it, with the Prisma
 * spans, `invoke_agent`, a `chat` span per LLM request and an `execute_tool` span per tool call.
 */
describe.each(TEST_PROVIDERS)('OpenTelemetry traces of a run (%s)', (db) => {
  let receiver: OtlpReceiver;
  let stack: Stack;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    // A short batch delay: the spans arrive soon after they end (the test waits for them, never for time).
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '50' };
    stack = await startStack({
      db,
      handler: scriptedAgent({
        planning: [plan('Write the file')],
        steps: { 1: [{ name: 'execute_on_worker', arguments: { command: 'echo hi > out.txt' } }, advance('written')] },
      }),
      apiEnv: otel,
      workerEnv: otel,
    });
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
  });

  it(
    'is one trace across the API and the worker, with the GenAI spans and the scripted LLM’s models and tokens',
    async () => {
      const created = await stack.alice.createWorkflow(stack.projectId, REQUIREMENT);
      await stack.waitForStatus(created.id, 'completed');
      const workflow = await stack.alice.workflow(created.id);
      expect(workflow.trace_id).toMatch(/^[0-9a-f]{32}$/);
      const traceId = workflow.trace_id!;
      const calls = (stack.llm.requests as unknown as LlmRecord[]).filter(
        (r) => r.path === '/chat/completions' && r.status === 200,
      );
      expect(calls.length).toBeGreaterThanOrEqual(3);

      // Everything has arrived once every LLM request's span and the ended run's span are in.
      const inTrace = (spans: readonly ReceivedSpan[]) => spans.filter((s) => s.traceId === traceId);
      const spans = inTrace(
        await receiver.until((all) => {
          const mine = inTrace(all);
          return (
            mine.some((s) => s.name === 'invoke_agent svc' && s.attributes['svc.run.end'] === 'completed') &&
            calls.every((call) => mine.some((s) => s.attributes['gen_ai.response.id'] === call.response.id)) &&
            mine.some((s) => s.service === 'svc-api' && s.parentSpanId === '') &&
            mine.some((s) => s.attributes['http.route'] === '/svc/api/workflows/{id}/files/*')
          );
        }),
      );
      expect(receiver.refused).toEqual([]);

      // One tree: one root (the create request), every other span's parent in the trace.
      const byId = new Map(spans.map((s) => [s.spanId, s]));
      const roots = spans.filter((s) => s.parentSpanId === '');
      expect(roots).toHaveLength(1);
      const root = roots[0]!;
      expect(spans.filter((s) => s !== root && !byId.has(s.parentSpanId)).map((s) => s.name)).toEqual([]);
      expect(root).toMatchObject({
        service: 'svc-api',
        kind: 2,
        name: 'POST /svc/api/projects/{id}/workflows',
        attributes: {
          'http.request.method': 'POST',
          'http.route': '/svc/api/projects/{id}/workflows',
          'http.response.status_code': 201,
          'url.path': `/svc/api/projects/${stack.projectId}/workflows`,
        },
      });
      const ancestors = (span: ReceivedSpan): ReceivedSpan[] => {
        const parent = byId.get(span.parentSpanId);
        return parent ? [parent, ...ancestors(parent)] : [];
      };

      // The database calls of the request are its descendants.
      const db = spans.filter((s) => s.service === 'svc-api' && s.name.startsWith('prisma:'));
      expect(db.map((s) => s.name)).toEqual(expect.arrayContaining(['prisma:client:operation']));
      for (const span of db) expect(ancestors(span)).toContain(root);

      // The worker's run hangs under the creating request.
      const agents = spans.filter((s) => s.name === 'invoke_agent svc');
      expect(agents.length).toBeGreaterThanOrEqual(1);
      for (const agent of agents) {
        expect(agent).toMatchObject({
          service: 'svc-worker',
          parentSpanId: root.spanId,
          attributes: {
            'gen_ai.operation.name': 'invoke_agent',
            'gen_ai.agent.name': 'svc',
            'gen_ai.conversation.id': workflow.id,
            'svc.workflow_id': workflow.id,
          },
        });
      }

      // A chat span per LLM request, with what the scripted LLM answered.
      const chats = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat');
      expect(chats).toHaveLength(calls.length);
      for (const call of calls) {
        const chat = chats.find((s) => s.attributes['gen_ai.response.id'] === call.response.id)!;
        expect(chat).toMatchObject({
          service: 'svc-worker',
          kind: 3,
          name: 'chat scripted-e2e',
          attributes: {
            'gen_ai.provider.name': 'openai',
            'gen_ai.request.model': 'scripted-e2e',
            'gen_ai.response.model': call.response.model,
            'gen_ai.usage.input_tokens': call.response.usage.prompt_tokens,
            'gen_ai.usage.output_tokens': call.response.usage.completion_tokens,
            'gen_ai.response.finish_reasons': call.response.choices.map((c) => c.finish_reason),
          },
        });
        // The run's calls are inside invoke_agent; the title's hangs under the request directly.
        const parent = byId.get(chat.parentSpanId)!;
        if (chat.attributes['svc.llm.phase'] === 'title') expect(parent).toBe(root);
        else expect(ancestors(chat).some((s) => agents.includes(s))).toBe(true);
      }

      // An execute_tool span per tool call, inside the run.
      const tools = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');
      expect(tools.map((s) => s.name)).toEqual(
        expect.arrayContaining([
          'execute_tool submit_plan',
          'execute_tool execute_on_worker',
          'execute_tool advance_step',
        ]),
      );
      for (const tool of tools) {
        expect(tool.attributes['gen_ai.tool.name']).toBe(tool.name.slice('execute_tool '.length));
        expect(tool.attributes['gen_ai.tool.call.id']).toEqual(expect.any(String));
        expect(ancestors(tool).some((s) => agents.includes(s))).toBe(true);
      }

      // The worker's REST calls of the run (workspace pull and push) are API spans inside it.
      const workerCalls = spans.filter((s) => s.service === 'svc-api' && s.kind === 2 && s !== root);
      expect(workerCalls.map((s) => s.attributes['http.route'])).toEqual(
        expect.arrayContaining(['/svc/api/workflows/{id}/files/*']),
      );
      for (const call of workerCalls) expect(ancestors(call).some((s) => agents.includes(s))).toBe(true);

      // No prompt, completion or tool text in any span.
      const texts = spans.flatMap((s) => Object.values(s.attributes)).map((v) => JSON.stringify(v));
      expect(texts.filter((t) => t.includes('traced-secret-requirement'))).toEqual([]);

      // The worker's log lines about the run carry the run's trace id (decision 0057).
      const lines = stack.workers[0]!.output.split('\n').filter((line) => line.startsWith('{'));
      const aboutRun = lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((l) => l.run_id === created.id);
      expect(aboutRun.length).toBeGreaterThan(0);
      expect(aboutRun.filter((line) => line.trace_id !== traceId)).toEqual([]);
    },
    E2E_TIMEOUT_MS,
  );
});
