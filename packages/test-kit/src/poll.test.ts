import { eventually, StopWaiting } from './poll';

describe('eventually', () => {
  it('re-checks until an assertion passes and returns what the check returned', async () => {
    let calls = 0;
    const value = await eventually(() => {
      calls++;
      if (calls < 3) throw new Error('not yet');
      return 'ready';
    });
    expect(value).toBe('ready');
    expect(calls).toBe(3);
  });

  it('treats false as "not yet" and any other value, undefined included, as done', async () => {
    let calls = 0;
    expect(await eventually(() => ++calls >= 2)).toBe(true);
    expect(await eventually(() => undefined)).toBeUndefined();
  });

  it('stops at once on StopWaiting', async () => {
    let calls = 0;
    await expect(
      eventually(() => {
        calls++;
        throw new StopWaiting('the workflow failed');
      }),
    ).rejects.toThrow('the workflow failed');
    expect(calls).toBe(1);
  });

  it('names what it waited for and the last failure when its safety cap is reached', async () => {
    await expect(
      eventually(
        () => {
          throw new Error('still 0');
        },
        { what: 'the counter', giveUpAfterMs: 0 },
      ),
    ).rejects.toThrow('gave up waiting for the counter (safety cap 0 ms): still 0');
  });
});
