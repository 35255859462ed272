import { Outbox } from './outbox';

const status = (s: 'planning' | 'running') => ({ kind: 'status', data: { status: s } }) as const;

describe('Outbox', () => {
  it('numbers updates per workflow after the dispatched last_seq', () => {
    const outbox = new Outbox();
    outbox.begin('a', 7);
    outbox.begin('b', 0);
    expect(outbox.add('a', status('planning')).seq).toBe(8);
    expect(outbox.add('b', status('planning')).seq).toBe(1);
    expect(outbox.add('a', status('running'))).toEqual({
      type: 'update',
      workflow_id: 'a',
      seq: 9,
      kind: 'status',
      data: { status: 'running' },
    });
  });

  it('never reuses a number when a workflow is begun again with an older last_seq', () => {
    const outbox = new Outbox();
    outbox.begin('a', 0);
    outbox.add('a', status('planning'));
    outbox.add('a', status('running'));
    outbox.begin('a', 1);
    expect(outbox.add('a', status('running')).seq).toBe(3);
    outbox.begin('a', 10);
    expect(outbox.add('a', status('running')).seq).toBe(11);
  });

  it('keeps updates until acked and lists the rest oldest first', () => {
    const outbox = new Outbox();
    outbox.begin('a', 0);
    outbox.begin('b', 0);
    outbox.add('a', status('planning'));
    outbox.add('b', status('planning'));
    outbox.add('a', status('running'));
    expect(outbox.ack('a', 1)).toBe(true);
    expect(outbox.ack('a', 1)).toBe(false);
    expect(outbox.ack('zzz', 1)).toBe(false);
    expect(outbox.unacked().map((u) => `${u.workflow_id}:${u.seq}`)).toEqual(['b:1', 'a:2']);
    expect(outbox.size).toBe(2);
  });

  it('says which workflows still have progress to deliver (a title alone is none)', () => {
    const outbox = new Outbox();
    outbox.begin('wf-a', 0);
    outbox.begin('wf-b', 0);
    outbox.add('wf-a', { kind: 'title', data: { title: 'A' } });
    const running = outbox.add('wf-b', status('running'));
    expect([outbox.hasProgress('wf-a'), outbox.hasProgress('wf-b')]).toEqual([false, true]);
    expect(outbox.workflowsInProgress()).toEqual(['wf-b']);
    outbox.ack('wf-b', running.seq);
    expect(outbox.hasProgress('wf-b')).toBe(false);
    expect(outbox.workflowsInProgress()).toEqual([]);
  });

  it('refuses an update for a workflow that was never begun', () => {
    expect(() => new Outbox().add('x', status('planning'))).toThrow('was not begun');
  });
});
