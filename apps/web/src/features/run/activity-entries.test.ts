import type { BrowserEvent } from '@svc/protocol';
import { initialLiveState, liveReducer } from '../workflow/live-state';
import {
  activityEntries,
  addBySeq,
  repositoryEntryOf,
  webUrl,
  workflowActionOf,
  type EventEnvelope,
  type RepositoryEntry,
  type WorkflowAction,
} from './wire';

const ts = '2026-01-01T00:00:00.000Z';
const pushed = (seq: number, data: Record<string, unknown> = {}): EventEnvelope => ({
  type: 'repository_pushed',
  seq,
  ts,
  data: {
    branch: 'svc/12-x',
    base_branch: 'main',
    head_sha: 'a'.repeat(40),
    pushed: true,
    error: null,
    commits: 3,
    ...data,
  },
});
const opened = (seq: number, data: Record<string, unknown> = {}): EventEnvelope => ({
  type: 'pull_request_opened',
  seq,
  ts,
  data: { url: 'https://forge.example/acme/shop/pull/7', number: 7, branch: 'svc/12-x', base: 'main', ...data },
});
const action = (seq: number, kind = 'answered'): EventEnvelope => ({
  type: 'workflow_action',
  seq,
  ts,
  data: { action: kind, actor: { id: 'u1', login: 'carol', name: null }, message: null, revision: 0 },
});
const entry = (event: EventEnvelope) => {
  const read = repositoryEntryOf(event);
  if (!read) throw new Error(`not an entry: ${JSON.stringify(event)}`);
  return read;
};
const act = (event: EventEnvelope): WorkflowAction => {
  const read = workflowActionOf(event);
  if (!read) throw new Error(`not an action: ${JSON.stringify(event)}`);
  return read;
};

describe('repositoryEntryOf', () => {
  it('reads a push, a failed push and an opened pull request with their seq and time', () => {
    expect(repositoryEntryOf(pushed(4))).toEqual({
      kind: 'repository_pushed',
      seq: 4,
      ts,
      branch: 'svc/12-x',
      base_branch: 'main',
      head_sha: 'a'.repeat(40),
      pushed: true,
      error: null,
      commits: 3,
    });
    expect(repositoryEntryOf(pushed(5, { pushed: false, error: 'protected branch', head_sha: null }))).toMatchObject({
      kind: 'repository_pushed',
      seq: 5,
      pushed: false,
      error: 'protected branch',
    });
    expect(repositoryEntryOf(opened(6))).toEqual({
      kind: 'pull_request_opened',
      seq: 6,
      ts,
      url: 'https://forge.example/acme/shop/pull/7',
      number: 7,
      branch: 'svc/12-x',
      base: 'main',
    });
  });

  it('reads a push without head, error or commit count as null ones', () => {
    const { branch, base_branch, pushed: ok } = pushed(1).data as Record<string, unknown>;
    expect(repositoryEntryOf({ ...pushed(1), data: { branch, base_branch, pushed: ok } })).toMatchObject({
      head_sha: null,
      error: null,
      commits: null,
    });
  });

  it('ignores malformed data and other event types instead of throwing', () => {
    const malformed: EventEnvelope[] = [
      pushed(1, { branch: 42 }),
      pushed(2, { pushed: 'yes' }),
      pushed(3, { commits: -1 }),
      { ...pushed(4), data: null },
      { ...pushed(5), data: 'pushed' },
      opened(6, { number: '7' }),
      opened(7, { number: 7.5 }),
      opened(8, { url: undefined }),
      { ...opened(9), data: [] },
      action(10),
      { type: 'repository_deleted', seq: 11, ts, data: {} },
    ];
    for (const event of malformed) expect(repositoryEntryOf(event)).toBeNull();
  });
});

describe('activityEntries', () => {
  it('puts actions and repository events in seq order, each seq once', () => {
    const actions = [act(action(9, 'feedback')), act(action(1, 'created'))];
    const repository = [entry(opened(8)), entry(pushed(7)), entry(pushed(3, { pushed: false, error: 'denied' }))];
    const list = activityEntries(actions, [...repository, entry(pushed(7))]);
    expect(list.map((e) => [e.seq, e.kind])).toEqual([
      [1, 'workflow_action'],
      [3, 'repository_pushed'],
      [7, 'repository_pushed'],
      [8, 'pull_request_opened'],
      [9, 'workflow_action'],
    ]);
  });

  it('merges a replay with the live events that overlap it (addBySeq keeps the first copy)', () => {
    const replayed: RepositoryEntry[] = [entry(pushed(2)), entry(opened(4))];
    const merged = [entry(opened(4, { number: 99 })), entry(pushed(6))].reduce((all, e) => addBySeq(all, e), replayed);
    expect(merged.map((e) => e.seq)).toEqual([2, 4, 6]);
    expect(merged[1]).toMatchObject({ kind: 'pull_request_opened', number: 7 });
  });
});

describe('the live state of repository events', () => {
  const fold = (...events: EventEnvelope[]) =>
    events.reduce(
      (state, event, i) => liveReducer(state, { event: { ...event, workflow_id: 'wf' } as BrowserEvent, at: i + 1 }),
      initialLiveState,
    );

  it('keeps pushes and the pull request once each, in seq order, apart from the actions', () => {
    const state = fold(opened(5), pushed(4), opened(5), action(3));
    expect(state.repository.map((e) => [e.seq, e.kind])).toEqual([
      [4, 'repository_pushed'],
      [5, 'pull_request_opened'],
    ]);
    expect(state.actions.map((a) => a.seq)).toEqual([3]);
  });

  it('leaves the state untouched for a malformed push or pull request', () => {
    expect(fold(pushed(1, { branch: null }), opened(2, { number: 'seven' }))).toBe(initialLiveState);
  });
});

describe('webUrl', () => {
  it('links http(s) addresses only', () => {
    expect(webUrl('https://forge.example/a/b/pull/7')).toBe('https://forge.example/a/b/pull/7');
    expect(webUrl('http://127.0.0.1:8080/pulls/1')).toBe('http://127.0.0.1:8080/pulls/1');
    for (const url of ['javascript:alert(1)', 'data:text/html,hi', '/relative/pull/1', 'ftp://forge/x', ''])
      expect(webUrl(url)).toBeNull();
  });
});
