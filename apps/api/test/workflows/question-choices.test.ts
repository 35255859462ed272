import { snapshot, type TestWorker } from '@svc/test-kit';
import { TEST_PROVIDERS } from '../support/server';
import { body, createWorkflow } from '../support/fixtures';
import { workerSuite } from '../ws/clients';

/** Questions with choices, a default and a deadline (issue 29, decision 0075). */
describe.each(TEST_PROVIDERS)('questions with choices on %s', (provider) => {
  const suite = workerSuite(provider);
  const db = () => suite.server.deps.db;
  const answer = (id: string, text: string) =>
    suite.server.request(`/svc/api/workflows/${id}/answer`, {
      method: 'POST',
      as: suite.alice,
      json: { answer: text },
    });
  const answeredEvents = async (id: string) =>
    (await db().event.findMany({ where: { workflow_id: id, type: 'workflow_action' }, orderBy: { seq: 'asc' } }))
      .map((e) => e.data as { action: string; message: string | null; by_timeout?: true })
      .filter((d) => d.action === 'answered');

  /** A workflow whose worker asks `Deploy now?` with the choices yes/no (and `extra`: default, timeout). */
  async function asked(extra: Record<string, unknown> = {}): Promise<{ worker: TestWorker; id: string }> {
    const worker = await suite.start(`asker-${suite.workers.length}`);
    const { id } = await createWorkflow(suite.server, suite.alice, suite.projectId);
    const { last_seq } = await worker.dispatch(id, 'start');
    await worker.store(id, last_seq + 1, snapshot('executing', 0, ['running', 'pending']));
    await worker.store(id, last_seq + 2, {
      kind: 'status',
      data: { status: 'waiting_user', question: 'Deploy now?', choices: ['yes', 'no'], ...extra },
    });
    return { worker, id };
  }

  /** Moves the open question's deadline into the past (instead of waiting for the clock). */
  const comeDue = async (id: string): Promise<Date> => {
    const deadline = new Date(Date.now() - 1000);
    await db().workflow.update({ where: { id }, data: { question_deadline: deadline } });
    return deadline;
  };

  it('shows the choices, takes one of them as the answer and refuses any other text with nothing changed', async () => {
    const { worker, id } = await asked();
    const shown = await body(await suite.server.request(`/svc/api/workflows/${id}`, { as: suite.alice }));
    expect(shown).toMatchObject({
      status: 'waiting_user',
      question: 'Deploy now?',
      question_choices: ['yes', 'no'],
      question_default: null,
      question_deadline: null,
    });
    const status = await db().event.findFirstOrThrow({
      where: { workflow_id: id, type: 'workflow_status' },
      orderBy: { seq: 'desc' },
    });
    expect(status.data).toEqual({
      status: 'waiting_user',
      question: 'Deploy now?',
      error: null,
      choices: ['yes', 'no'],
    });

    const before = await db().workflow.findUniqueOrThrow({ where: { id } });
    const refused = await answer(id, 'maybe');
    expect(refused.status).toBe(400);
    expect((await body(refused)).error).toMatchObject({
      code: 'invalid_input',
      message: 'the answer must be one of the choices: "yes", "no"',
    });
    expect(await db().workflow.findUniqueOrThrow({ where: { id } })).toEqual(before);
    expect(await answeredEvents(id)).toEqual([]);

    const accepted = await answer(id, 'no');
    expect(accepted.status).toBe(200);
    expect(await body(accepted)).toMatchObject({ status: 'running', question: null, question_choices: null });
    expect(await worker.dispatch(id, 'answer')).toMatchObject({ message: 'no' });
  });

  it('answers with the default when the deadline passes, through the timer scheduler, and records it as a timeout', async () => {
    const { worker, id } = await asked({ default: 'no', timeout_seconds: 3600 });
    const shown = await body(await suite.server.request(`/svc/api/workflows/${id}`, { as: suite.alice }));
    expect(shown).toMatchObject({ question_choices: ['yes', 'no'], question_default: 'no' });
    expect(Date.parse(shown.question_deadline) - Date.now()).toBeGreaterThan(3500_000);

    await comeDue(id);
    suite.server.runtime.live.timers.notify();
    expect(await worker.dispatch(id, 'answer')).toMatchObject({ message: 'no' });
    expect(await db().workflow.findUniqueOrThrow({ where: { id } })).toMatchObject({
      status: 'running',
      question: null,
      question_choices: null,
      question_default: null,
      question_deadline: null,
    });
    expect(await answeredEvents(id)).toEqual([
      expect.objectContaining({ message: 'no', by_timeout: true, actor: { id: 'svc', login: 'svc', name: null } }),
    ]);
    // Too late for the person: the question was answered.
    expect((await answer(id, 'yes')).status).toBe(409);
  });

  it('leaves an entry in the execution log, in the waiting step, saying the question timed out into its default (decision 0079)', async () => {
    const { worker, id } = await asked({ default: 'yes', timeout_seconds: 600 });
    const deadline = await comeDue(id);
    suite.server.runtime.live.timers.notify();
    await worker.dispatch(id, 'answer');
    const log = await body(await suite.server.request(`/svc/api/workflows/${id}/log`, { as: suite.alice }));
    const entry = log.items.at(-1);
    expect(entry).toMatchObject({
      tool_name: 'question_timeout',
      step_index: 0,
      is_error: false,
      output: `No answer came by the deadline (${deadline.toISOString()}): the question was answered with its default "yes".`,
    });
    expect(entry.tool_input).toContain('question: Deploy now?');
    expect(entry.tool_input).toContain('default: yes');
    // the same entry as a live `log_entry` event, with the row's seq, right after the answer's action event
    const events = await db().event.findMany({ where: { workflow_id: id }, orderBy: { seq: 'asc' } });
    const logged = events.find((e) => e.type === 'log_entry');
    expect(logged).toMatchObject({ seq: entry.seq });
    expect(logged!.data).toMatchObject({ tool_name: 'question_timeout', output: entry.output });
    const before = events[events.indexOf(logged!) - 1]!;
    expect(before).toMatchObject({ type: 'workflow_action', data: expect.objectContaining({ by_timeout: true }) });
    // an answer by a person leaves no such entry
    const other = await asked({ default: 'yes', timeout_seconds: 600 });
    expect((await answer(other.id, 'no')).status).toBe(200);
    const otherLog = await body(await suite.server.request(`/svc/api/workflows/${other.id}/log`, { as: suite.alice }));
    expect(otherLog.items.map((e: { tool_name: string }) => e.tool_name)).not.toContain('question_timeout');
  });

  it('gives exactly one answer when a person answers just as the deadline passes', async () => {
    const { timers } = suite.server.runtime.live;
    for (let round = 0; round < 3; round++) {
      const { id } = await asked({ default: 'no', timeout_seconds: 3600 });
      // The scheduler waits while the two race here, each as it is called on its own.
      await timers.stop();
      try {
        const deadline = await comeDue(id);
        const [byPerson, byTimeout] = await Promise.all([
          answer(id, 'yes'),
          suite.server.runtime.live.workflows.answerByTimeout(id, deadline),
        ]);
        // The one that came second was refused: the person's answer with 409, the timeout with false.
        expect([200, 409]).toContain(byPerson.status);
        expect(byPerson.status === 200).toBe(!byTimeout);
        const answers = await answeredEvents(id);
        expect(answers).toHaveLength(1);
        expect(answers[0]!.message).toBe(byTimeout ? 'no' : 'yes');
      } finally {
        timers.start();
      }
    }
  });

  it('drops the choices and deadline of a question answered by a person, so no timeout answers it later', async () => {
    const { worker, id } = await asked({ default: 'yes', timeout_seconds: 60 });
    expect((await answer(id, 'yes')).status).toBe(200);
    await worker.dispatch(id, 'answer');
    const row = await db().workflow.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ question_deadline: null, question_default: null });
    expect(await answeredEvents(id)).toHaveLength(1);
    expect(await suite.server.runtime.live.workflows.answerByTimeout(id, new Date())).toBe(false);
  });
});
