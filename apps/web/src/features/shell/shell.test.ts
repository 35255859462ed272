import type { BrowserEvent } from '@svc/protocol';
import { parseThemeChoice } from './theme';
import { affectsWaiting } from './waiting';

describe('parseThemeChoice', () => {
  it('keeps light and dark, and falls back to the system for anything else', () => {
    expect(parseThemeChoice('light')).toBe('light');
    expect(parseThemeChoice('dark')).toBe('dark');
    expect(parseThemeChoice(null)).toBe('system');
    expect(parseThemeChoice('sepia')).toBe('system');
  });
});

describe('affectsWaiting', () => {
  const event = (type: string, data: unknown) =>
    ({ type, data, seq: 0, ts: '2026-11-25T10:00:00Z', project_id: 'p' }) as unknown as BrowserEvent;

  it('refetches on a status change, a deletion, a membership change, and a reconnect', () => {
    expect(affectsWaiting(event('workflow_status', { status: 'waiting_user' }))).toBe(true);
    expect(affectsWaiting(event('project_changed', { change: 'workflow_deleted', workflow_id: 'w' }))).toBe(true);
    expect(affectsWaiting(event('project_changed', { change: 'members' }))).toBe(true);
    expect(affectsWaiting(null)).toBe(true);
  });

  it('ignores title changes and new workflows (they start pending)', () => {
    expect(affectsWaiting(event('workflow_title', { title: 'x' }))).toBe(false);
    expect(affectsWaiting(event('project_changed', { change: 'workflow_created', workflow_id: 'w' }))).toBe(false);
  });
});
