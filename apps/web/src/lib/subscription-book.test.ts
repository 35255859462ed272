import type { BrowserCommandOutputMessage, BrowserEvent, BrowserServerMessage, CommandOutputData } from '@svc/protocol';
import { SubscriptionBook, type WorkflowListener } from './subscription-book';
import { browserSocketUrl, retryDelay, RETRY_MAX_MS } from './ws';

const ts = '2026-01-01T00:00:00Z';
const stepEvent = (seq: number, index = 0): BrowserEvent => ({
  type: 'plan_step_status',
  workflow_id: 'wf',
  project_id: 'p',
  seq,
  ts,
  data: { index, title: `Step ${index + 1}`, status: 'done' },
});

function recorder(): WorkflowListener & { events: number[]; subscribed: number[] } {
  const events: number[] = [];
  const subscribed: number[] = [];
  return { events, subscribed, onEvent: (e) => events.push(e.seq), onSubscribed: (s) => subscribed.push(s) };
}

const deliver = (book: SubscriptionBook, message: BrowserServerMessage) => book.receive(message).deliver();

describe('SubscriptionBook subscriptions', () => {
  it('subscribes once per workflow and unsubscribes when the last listener leaves', () => {
    const book = new SubscriptionBook();
    const a = recorder();
    const b = recorder();
    expect(book.addWorkflow('wf', a)).toEqual({ type: 'subscribe', workflow_id: 'wf' });
    expect(book.addWorkflow('wf', b)).toBeNull();
    expect(book.removeWorkflow('wf', a)).toBeNull();
    expect(book.removeWorkflow('wf', b)).toEqual({ type: 'unsubscribe', workflow_id: 'wf' });
    expect(book.removeWorkflow('wf', b)).toBeNull();
  });

  it('does the same for projects', () => {
    const book = new SubscriptionBook();
    const listener = () => undefined;
    expect(book.addProject('p', listener)).toEqual({ type: 'subscribe_project', project_id: 'p' });
    expect(book.addProject('p', () => undefined)).toBeNull();
    expect(book.removeProject('p', listener)).toBeNull();
  });

  it('resubscribes after a reconnect from the last seq seen, so the server replays only what was missed', () => {
    const book = new SubscriptionBook();
    const listener = recorder();
    book.addWorkflow('wf', listener);
    book.addWorkflow('fresh', recorder());
    book.addProject('p', () => undefined);
    deliver(book, { type: 'subscribed', workflow_id: 'wf', last_seq: 4 });
    deliver(book, stepEvent(5));
    deliver(book, stepEvent(6));
    expect(book.resubscribeMessages()).toEqual([
      { type: 'subscribe_project', project_id: 'p' },
      { type: 'subscribe', workflow_id: 'wf', since_seq: 6 },
      // never confirmed: starts from now (the page reloads its REST views on `subscribed`)
      { type: 'subscribe', workflow_id: 'fresh' },
    ]);
    expect(listener.subscribed).toEqual([4]);
  });
});

describe('SubscriptionBook delivery', () => {
  it('drops events already seen (a replay overlapping live events) and keeps order', () => {
    const book = new SubscriptionBook();
    const listener = recorder();
    book.addWorkflow('wf', listener);
    deliver(book, { type: 'subscribed', workflow_id: 'wf', last_seq: 2 });
    for (const seq of [2, 3, 4, 3, 4, 5]) deliver(book, stepEvent(seq));
    expect(listener.events).toEqual([3, 4, 5]);
    expect(book.receive(stepEvent(5)).duplicate).toBe(true);
  });

  it('never moves the last seq backwards when a late subscribed arrives', () => {
    const book = new SubscriptionBook();
    book.addWorkflow('wf', recorder());
    deliver(book, stepEvent(9));
    deliver(book, { type: 'subscribed', workflow_id: 'wf', last_seq: 7 });
    expect(book.lastSeq('wf')).toBe(9);
  });

  it('gives a workflow status to both the workflow and its project listeners (the server sends it once)', () => {
    const book = new SubscriptionBook();
    const workflow = recorder();
    const project: string[] = [];
    book.addWorkflow('wf', workflow);
    book.addProject('p', (e) => project.push(e.type));
    deliver(book, {
      type: 'workflow_status',
      workflow_id: 'wf',
      project_id: 'p',
      seq: 3,
      ts,
      data: { status: 'running' },
    });
    deliver(book, stepEvent(4));
    expect(workflow.events).toEqual([3, 4]);
    // plan steps are not project news
    expect(project).toEqual(['workflow_status']);
  });

  it('passes project events (seq 0) every time, without deduplication', () => {
    const book = new SubscriptionBook();
    const seen: string[] = [];
    book.addProject('p', (e) => seen.push(e.type));
    const changed: BrowserEvent = {
      type: 'project_changed',
      project_id: 'p',
      seq: 0,
      ts,
      data: { change: 'workflow_created', workflow_id: 'w1' },
    };
    deliver(book, changed);
    deliver(book, changed);
    deliver(book, { ...changed, project_id: 'other' });
    expect(seen).toEqual(['project_changed', 'project_changed']);
  });

  it('keeps delivering to other listeners when one throws', () => {
    const book = new SubscriptionBook();
    const after = recorder();
    const spy = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    book.addWorkflow('wf', {
      onEvent: () => {
        throw new Error('listener bug');
      },
    });
    book.addWorkflow('wf', after);
    deliver(book, stepEvent(1));
    expect(after.events).toEqual([1]);
    expect(spy).toHaveBeenCalledWith('svc: a live event listener failed', expect.any(Error));
    spy.mockRestore();
  });
});

describe('SubscriptionBook command output (ephemeral, outside the seq envelope)', () => {
  const offsetOf = (e: CommandOutputData) => (e.event === 'output' ? e.offset : -1);
  const output = (offset: number): BrowserCommandOutputMessage => ({
    type: 'command_output',
    workflow_id: 'wf',
    data: { call_id: 'c1', event: 'output', stream: 'stdout', offset, chunk: `line ${offset}\n` },
  });

  it("goes to the workflow's listeners only, and leaves the seq dedupe alone", () => {
    const book = new SubscriptionBook();
    const seen: CommandOutputData[] = [];
    const events = recorder();
    book.addWorkflow('wf', { ...events, onCommandOutput: (e) => seen.push(e) });
    const elsewhere: CommandOutputData[] = [];
    book.addWorkflow('other', { onEvent: () => undefined, onCommandOutput: (e) => elsewhere.push(e) });
    deliver(book, { type: 'subscribed', workflow_id: 'wf', last_seq: 4 });
    book.receiveCommandOutput(output(0)).deliver();
    // the same chunk again still reaches the view, which deduplicates by offset
    book.receiveCommandOutput(output(0)).deliver();
    deliver(book, stepEvent(5));
    book.receiveCommandOutput(output(7)).deliver();
    expect(seen.map((e) => e.event === 'output' && e.offset)).toEqual([0, 0, 7]);
    expect(elsewhere).toEqual([]);
    // stored events are still deduplicated by seq, untouched by the ephemeral messages between them
    expect(book.lastSeq('wf')).toBe(5);
    deliver(book, stepEvent(5));
    deliver(book, stepEvent(6));
    expect(events.events).toEqual([5, 6]);
  });

  it('is served through receive as well, as a server message', () => {
    const book = new SubscriptionBook();
    const seen: number[] = [];
    book.addWorkflow('wf', {
      onEvent: () => undefined,
      onCommandOutput: (e) => seen.push(e.event === 'output' ? e.offset : -1),
    });
    book.receive(output(3) as unknown as BrowserServerMessage).deliver();
    expect(seen).toEqual([3]);
    expect(book.lastSeq('wf')).toBeNull();
  });

  it('drops output for a workflow nobody follows and tolerates listeners without a handler', () => {
    const book = new SubscriptionBook();
    const events = recorder();
    book.addWorkflow('wf', events);
    expect(() => book.receiveCommandOutput(output(0)).deliver()).not.toThrow();
    expect(() => book.receiveCommandOutput({ ...output(0), workflow_id: 'elsewhere' }).deliver()).not.toThrow();
    expect(events.events).toEqual([]);
    // before any subscribed message too: live output needs no confirmed seq
    const seen: number[] = [];
    book.addWorkflow('wf', { onEvent: () => undefined, onCommandOutput: (e) => seen.push(offsetOf(e)) });
    book.receiveCommandOutput(output(1)).deliver();
    // the later listener got the output so far first (0), then what followed (1)
    expect(seen).toEqual([0, 1]);
    expect(book.lastSeq('wf')).toBeNull();
  });

  it('gives a listener that comes after the replay the output so far of what still runs, and only that', () => {
    const book = new SubscriptionBook();
    book.addWorkflow('wf', recorder());
    const started: BrowserCommandOutputMessage = {
      type: 'command_output',
      workflow_id: 'wf',
      data: { call_id: 'c1', event: 'started', step_index: 1, command: 'npm test', started_at: '2026-11-29T00:00:00Z' },
    };
    book.receiveCommandOutput(started).deliver();
    book.receiveCommandOutput(output(0)).deliver();
    book.receiveCommandOutput({ ...output(0), data: { ...output(0).data, call_id: 'c2' } }).deliver();
    book
      .receiveCommandOutput({
        type: 'command_output',
        workflow_id: 'wf',
        data: { call_id: 'c2', event: 'finished', exit_code: 0, duration_ms: 5 },
      })
      .deliver();
    const late: CommandOutputData[] = [];
    book.addWorkflow('wf', { onEvent: () => undefined, onCommandOutput: (e) => late.push(e) });
    expect(late.map((e) => `${e.call_id} ${e.event}`)).toEqual(['c1 started', 'c1 output']);

    // a new connection replays what still runs itself: nothing kept is handed out again
    book.resubscribeMessages();
    const afterReconnect: CommandOutputData[] = [];
    book.addWorkflow('wf', { onEvent: () => undefined, onCommandOutput: (e) => afterReconnect.push(e) });
    expect(afterReconnect).toEqual([]);
  });

  it('forgets the output of a workflow nobody follows any more', () => {
    const book = new SubscriptionBook();
    const first = recorder();
    book.addWorkflow('wf', first);
    book.receiveCommandOutput(output(0)).deliver();
    book.removeWorkflow('wf', first);
    const seen: CommandOutputData[] = [];
    book.addWorkflow('wf', recorder());
    book.addWorkflow('wf', { onEvent: () => undefined, onCommandOutput: (e) => seen.push(e) });
    expect(seen).toEqual([]);
  });
});

describe('reconnect helpers', () => {
  it('backs off exponentially with jitter and a cap', () => {
    expect(retryDelay(0, () => 0)).toBe(250);
    expect(retryDelay(0, () => 1)).toBe(500);
    expect(retryDelay(3, () => 1)).toBe(4000);
    expect(retryDelay(30, () => 1)).toBe(RETRY_MAX_MS);
    expect(retryDelay(30, () => 0)).toBe(RETRY_MAX_MS / 2);
  });

  it('builds the socket URL from the page origin', () => {
    expect(browserSocketUrl({ protocol: 'https:', host: 'svc.example.com' })).toBe('wss://svc.example.com/svc/ws');
    expect(browserSocketUrl({ protocol: 'http:', host: '127.0.0.1:8080' })).toBe('ws://127.0.0.1:8080/svc/ws');
  });
});
