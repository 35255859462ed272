import { parseStatuses } from './WorkflowList';
import { STATUS_FILTERS } from './RunFilters';

describe('parseStatuses', () => {
  it('reads the comma list of ?status=', () => {
    expect(parseStatuses('running,waiting_user')).toEqual(['running', 'waiting_user']);
    expect(parseStatuses(null)).toEqual([]);
    expect(parseStatuses('')).toEqual([]);
  });

  it('drops what is not a wire status rather than sending it', () => {
    expect(parseStatuses('running,bogus,,DROP TABLE')).toEqual(['running']);
  });

  it('round-trips every choice of the status filter', () => {
    for (const filter of STATUS_FILTERS) expect(parseStatuses(filter.statuses.join(','))).toEqual(filter.statuses);
  });
});
