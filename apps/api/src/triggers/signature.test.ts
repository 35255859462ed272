import { newTriggerSecret, signDelivery, TIMESTAMP_TOLERANCE_SECONDS, verifyDelivery } from './signature';

describe('verifyDelivery', () => {
  const secret = newTriggerSecret();
  const body = '{"zen":"Keep it logically awesome."}';
  const now = 1_800_000_000_000;
  const github = (extra: Record<string, string> = {}) => ({
    ...Object.fromEntries(
      Object.entries(signDelivery('github', secret, body, 0)).map(([k, v]) => [k.toLowerCase(), v]),
    ),
    'x-github-delivery': 'd-1',
    'x-github-event': 'ping',
    ...extra,
  });
  const stamped = (timestamp: number, extra: Record<string, string> = {}) => ({
    ...Object.fromEntries(
      Object.entries(signDelivery('timestamped', secret, body, timestamp)).map(([k, v]) => [k.toLowerCase(), v]),
    ),
    'x-svc-delivery': 'd-2',
    ...extra,
  });

  it("accepts GitHub's form over the exact bytes and names the delivery and event", () => {
    expect(verifyDelivery('github', secret, github(), Buffer.from(body))).toEqual({ deliveryId: 'd-1', event: 'ping' });
  });

  it('refuses a changed body, another secret, a missing or malformed signature with 401', () => {
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return (error as { code: string }).code;
      }
      return 'accepted';
    };
    expect(code(() => verifyDelivery('github', secret, github(), Buffer.from(`${body} `)))).toBe('unauthenticated');
    expect(code(() => verifyDelivery('github', newTriggerSecret(), github(), Buffer.from(body)))).toBe(
      'unauthenticated',
    );
    expect(
      code(() => verifyDelivery('github', secret, github({ 'x-hub-signature-256': 'sha256=00' }), Buffer.from(body))),
    ).toBe('unauthenticated');
    const { 'x-hub-signature-256': _dropped, ...unsigned }: Record<string, string> = github();
    expect(code(() => verifyDelivery('github', secret, unsigned, Buffer.from(body)))).toBe('unauthenticated');
  });

  it('accepts the timestamped form within the tolerance and refuses it outside (400)', () => {
    const seconds = now / 1000;
    expect(verifyDelivery('timestamped', secret, stamped(seconds - 10), Buffer.from(body), now)).toEqual({
      deliveryId: 'd-2',
      event: 'message',
    });
    const stale = seconds - TIMESTAMP_TOLERANCE_SECONDS - 1;
    expect(() => verifyDelivery('timestamped', secret, stamped(stale), Buffer.from(body), now)).toThrow(/seconds from/);
    const future = seconds + TIMESTAMP_TOLERANCE_SECONDS + 1;
    expect(() => verifyDelivery('timestamped', secret, stamped(future), Buffer.from(body), now)).toThrow(
      /seconds from/,
    );
  });

  it('binds the timestamp into the signature: a fresh timestamp on an old signature is refused', () => {
    const seconds = now / 1000;
    const old = stamped(seconds - 10_000);
    expect(() =>
      verifyDelivery('timestamped', secret, { ...old, 'x-svc-timestamp': String(seconds) }, Buffer.from(body), now),
    ).toThrow(/X-Svc-Signature/);
  });
});
