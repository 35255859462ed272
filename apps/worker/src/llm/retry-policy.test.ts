import { RetryPolicy, type AttemptFailure } from './retry-policy';

const policy = new RetryPolicy({ maxRetries: 2, maxRetryAfterSeconds: 10, baseMs: 100, maxMs: 300 });
const failed = (fields: Partial<AttemptFailure> = {}): AttemptFailure => ({
  reason: 'HTTP 503: busy',
  retryable: true,
  ...fields,
});

describe('RetryPolicy', () => {
  it('gives up on a failure that is not retryable, and after maxRetries retries', () => {
    expect(policy.decide(failed({ retryable: false }), 1)).toEqual({ retry: false, reason: 'HTTP 503: busy' });
    expect(policy.decide(failed(), 2)).toMatchObject({ retry: true });
    expect(policy.decide(failed(), 3)).toEqual({ retry: false, reason: 'HTTP 503: busy' });
  });

  it('waits as long as the server asks, up to maxRetryAfterSeconds, and gives up beyond it', () => {
    expect(policy.decide(failed({ serverDelayMs: 10_000 }), 1)).toEqual({ retry: true, waitMs: 10_000 });
    expect(policy.decide(failed({ serverDelayMs: 10_001 }), 1)).toEqual({
      retry: false,
      reason: 'HTTP 503: busy; the server asked to retry after 10.001 s, more than llm.max_retry_after_seconds (10)',
    });
  });

  it('retries a nudged bad reply at once, even when a delay was asked for', () => {
    expect(policy.decide(failed({ nudge: 'Answer.' }), 1)).toEqual({ retry: true, waitMs: 0 });
    expect(policy.decide(failed({ nudge: 'Answer.', serverDelayMs: 5000 }), 1)).toEqual({ retry: true, waitMs: 0 });
  });

  it('backs off exponentially, jittered, up to maxMs', () => {
    const waits = [1, 2, 3].map((attempt) => {
      const decision = new RetryPolicy({ maxRetries: 5, maxRetryAfterSeconds: 10, baseMs: 100, maxMs: 300 }).decide(
        failed(),
        attempt,
      );
      return decision.retry ? decision.waitMs : -1;
    });
    [100, 200, 300].forEach((full, i) => {
      expect(waits[i]).toBeGreaterThanOrEqual(full / 2);
      expect(waits[i]).toBeLessThanOrEqual(full);
    });
  });
});
