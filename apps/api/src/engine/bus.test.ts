import { EngineBus } from './bus';

describe('EngineBus', () => {
  it('runs every listener of an event in order, and a failing one neither stops the others nor the emitter', () => {
    const bus = new EngineBus();
    const failures: unknown[] = [];
    bus.onError = (err) => failures.push(err);
    const seen: string[] = [];
    bus.on('stale', ({ workflowIds }) => seen.push(`first ${workflowIds.join()}`));
    bus.on('stale', () => {
      throw new Error('listener broke');
    });
    const stop = bus.on('stale', ({ workflowIds }) => seen.push(`third ${workflowIds.join()}`));
    bus.emit('stale', { workflowIds: ['a'] });
    stop();
    bus.emit('stale', { workflowIds: ['b'] });
    expect(seen).toEqual(['first a', 'third a', 'first b']);
    expect(failures.map((e) => (e as Error).message)).toEqual(['listener broke', 'listener broke']);
  });

  it('keeps the listeners of one event apart from the other', () => {
    const bus = new EngineBus();
    const seen: string[] = [];
    bus.on('transitioned', ({ workflow }) => seen.push(workflow.id));
    bus.emit('stale', { workflowIds: ['x'] });
    expect(seen).toEqual([]);
  });
});
