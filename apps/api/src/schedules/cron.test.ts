import { isTimeZone, latestRunAtOrBefore, nextRuns, parseCron } from './cron';

const iso = (dates: Date[]) => dates.map((d) => d.toISOString());

describe('schedule cron', () => {
  it('reads six fields as seconds first, five as minutes', () => {
    const everyTwoSeconds = parseCron({ cron: '*/2 * * * * *', timezone: 'UTC' });
    expect(iso(nextRuns(everyTwoSeconds, 3, new Date('2026-01-01T00:00:05.500Z')))).toEqual([
      '2026-01-01T00:00:06.000Z',
      '2026-01-01T00:00:08.000Z',
      '2026-01-01T00:00:10.000Z',
    ]);
    const hourly = parseCron({ cron: '15 * * * *', timezone: 'UTC' });
    expect(iso(nextRuns(hourly, 2, new Date('2026-01-01T00:20:00Z')))).toEqual([
      '2026-01-01T01:15:00.000Z',
      '2026-01-01T02:15:00.000Z',
    ]);
  });

  it('keeps local wall-clock times across a DST change (Europe/Berlin, spring forward and fall back)', () => {
    const nineLocal = parseCron({ cron: '0 9 * * *', timezone: 'Europe/Berlin' });
    // 09:00 CET is 08:00Z until 29 March 2026, 09:00 CEST is 07:00Z after.
    expect(iso(nextRuns(nineLocal, 3, new Date('2026-03-28T00:00:00Z')))).toEqual([
      '2026-03-28T08:00:00.000Z',
      '2026-03-29T07:00:00.000Z',
      '2026-03-30T07:00:00.000Z',
    ]);
    // 02:30 does not exist on 29 March: a fixed-time job runs once, at the first valid time after the gap.
    const halfPastTwo = parseCron({ cron: '30 2 * * *', timezone: 'Europe/Berlin' });
    expect(iso(nextRuns(halfPastTwo, 3, new Date('2026-03-28T00:00:00Z')))).toEqual([
      '2026-03-28T01:30:00.000Z',
      '2026-03-29T01:00:00.000Z',
      '2026-03-30T00:30:00.000Z',
    ]);
    // 02:30 happens twice on 25 October: it runs once.
    expect(iso(nextRuns(halfPastTwo, 3, new Date('2026-10-24T12:00:00Z')))).toEqual([
      '2026-10-25T00:30:00.000Z',
      '2026-10-26T01:30:00.000Z',
      '2026-10-27T01:30:00.000Z',
    ]);
  });

  it('finds the latest tick at or before a time', () => {
    const everyTwoSeconds = parseCron({ cron: '*/2 * * * * *', timezone: 'UTC' });
    expect(latestRunAtOrBefore(everyTwoSeconds, new Date('2026-01-01T00:00:04.000Z'))?.toISOString()).toBe(
      '2026-01-01T00:00:04.000Z',
    );
    expect(latestRunAtOrBefore(everyTwoSeconds, new Date('2026-01-01T00:00:05.999Z'))?.toISOString()).toBe(
      '2026-01-01T00:00:04.000Z',
    );
    expect(latestRunAtOrBefore(everyTwoSeconds, new Date('2026-01-01T00:00:03.999Z'))?.toISOString()).toBe(
      '2026-01-01T00:00:02.000Z',
    );
  });

  it('refuses bad syntax, unknown time zones and expressions that never fire, naming the field', () => {
    expect(() => parseCron({ cron: 'every day', timezone: 'UTC' })).toThrow(/body\.cron/);
    expect(() => parseCron({ cron: '61 * * * *', timezone: 'UTC' })).toThrow(/body\.cron/);
    expect(() => parseCron({ cron: '* * * * * * *', timezone: 'UTC' })).toThrow(/body\.cron/);
    expect(() => parseCron({ cron: '0 0 30 2 *', timezone: 'UTC' })).toThrow(/never fires/);
    expect(() => parseCron({ cron: '* * * * *', timezone: 'Mars/Olympus' })).toThrow(/body\.timezone/);
    expect(isTimeZone('America/New_York')).toBe(true);
    expect(isTimeZone('Nowhere/Town')).toBe(false);
  });
});
