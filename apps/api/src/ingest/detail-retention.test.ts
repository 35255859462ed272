import { DEFAULT_LLM_DETAIL_RETENTION_DAYS, retentionDays } from './detail-retention';

describe('retentionDays', () => {
  it.each([
    ['30', 30],
    [' 7 ', 7],
    ['0', 0],
    ['0.5', 0.5],
    ['"14"', 14],
  ])('reads %j as %d days', (raw, days) => expect(retentionDays(raw)).toBe(days));

  it.each([undefined, null, '', 'forever', '-1', 'NaN'])('falls back to the default for %j', (raw) => {
    expect(retentionDays(raw)).toBe(DEFAULT_LLM_DETAIL_RETENTION_DAYS);
  });
});
