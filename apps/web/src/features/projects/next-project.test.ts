import { nextProjectAfterDelete } from './next-project';

const list = (...ids: string[]) => ids.map((id) => ({ id }));

describe('nextProjectAfterDelete', () => {
  it('selects the project after the deleted one', () => {
    expect(nextProjectAfterDelete(list('a', 'b', 'c'), 'b')).toBe('c');
    expect(nextProjectAfterDelete(list('a', 'b', 'c'), 'a')).toBe('b');
  });

  it('selects the one before when the last was deleted', () => {
    expect(nextProjectAfterDelete(list('a', 'b', 'c'), 'c')).toBe('b');
  });

  it('selects nothing when no project is left', () => {
    expect(nextProjectAfterDelete(list('a'), 'a')).toBeNull();
    expect(nextProjectAfterDelete([], 'a')).toBeNull();
  });

  it('selects the first when the deleted one was not in the list', () => {
    expect(nextProjectAfterDelete(list('a', 'b'), 'x')).toBe('a');
  });
});
