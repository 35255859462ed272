import { commandIn, feedbackOf, intentOf, requirementOf, SVC_COMMENT_MARKER } from './webhook-events';
import { signForgeDelivery, verifyForgeDelivery } from './webhook-signature';

const triggers = { label: 'svc', command: '/svc' };

describe('forge delivery intents', () => {
  it('reads a command only as a whole word at the start', () => {
    expect(commandIn('/svc', '/svc')).toBe('');
    expect(commandIn('  /svc fix the footer ', '/svc')).toBe('fix the footer');
    expect(commandIn('/svcx fix', '/svc')).toBeNull();
    expect(commandIn('please /svc', '/svc')).toBeNull();
    expect(commandIn('/svc', null)).toBeNull();
  });

  it('Gitea: a label update carrying the label starts a run; a PR comment is feedback; its own comment is not', () => {
    const issue = {
      number: 3,
      title: 'Footer',
      body: 'Add one',
      html_url: 'https://gitea.test/a/b/issues/3',
      labels: [{ name: 'svc' }],
    };
    const started = intentOf('gitea', 'issues', { action: 'label_updated', issue }, triggers);
    expect(started).toMatchObject({ kind: 'start', via: 'label', issue: { number: 3, title: 'Footer' } });
    if (started.kind === 'start')
      expect(requirementOf(started)).toBe('Footer\n\nAdd one\n\n(Issue #3: https://gitea.test/a/b/issues/3)');
    const onPull = intentOf(
      'gitea',
      'issue_comment',
      {
        action: 'created',
        is_pull: true,
        issue: { number: 9 },
        comment: { body: 'rename it', user: { login: 'rev', id: 7 } },
      },
      triggers,
    );
    // Gitea's payload does not say the commenter's role: the forge is asked (by login).
    expect(onPull).toEqual({
      kind: 'comment_on_pull',
      pullNumber: 9,
      author: 'rev',
      body: 'rename it',
      where: null,
      checkRole: { login: 'rev', id: 7 },
    });
    if (onPull.kind === 'comment_on_pull')
      expect(feedbackOf(onPull)).toBe('@rev commented on the pull request:\n\nrename it');
    const own = intentOf(
      'gitea',
      'issue_comment',
      {
        action: 'created',
        is_pull: true,
        issue: { number: 9 },
        comment: { body: `${SVC_COMMENT_MARKER}\nOpened by svc` },
      },
      triggers,
    );
    expect(own.kind).toBe('ignore');
  });

  it('GitLab: an added label starts a run, an issue note with the command too; a merge request note is feedback', () => {
    const hook = {
      object_attributes: { iid: 4, title: 'Footer', description: 'Add one', url: 'https://gitlab.test/g/p/-/issues/4' },
      changes: { labels: { previous: [{ title: 'bug' }], current: [{ title: 'bug' }, { title: 'svc' }] } },
    };
    expect(intentOf('gitlab', 'Issue Hook', hook, triggers)).toMatchObject({ kind: 'start', issue: { number: 4 } });
    const kept = { ...hook, changes: { labels: { previous: [{ title: 'svc' }], current: [{ title: 'svc' }] } } };
    expect(intentOf('gitlab', 'Issue Hook', kept, triggers).kind).toBe('ignore');
    const note = {
      user: { username: 'ann', id: 3 },
      object_attributes: { note: '/svc also the docs', noteable_type: 'Issue' },
      issue: { iid: 4, title: 'Footer', description: 'Add one' },
    };
    // GitLab's payload does not say the commenter's role either: asked by user id.
    expect(intentOf('gitlab', 'Note Hook', note, triggers)).toMatchObject({
      kind: 'start',
      via: 'command',
      instruction: 'also the docs',
      checkRole: { login: 'ann', id: 3 },
    });
    // A label needs triage rights on the forge itself: no role check.
    expect(intentOf('gitlab', 'Issue Hook', hook, triggers)).not.toHaveProperty('checkRole');
    const review = {
      user: { username: 'rev' },
      object_attributes: {
        note: 'use a constant',
        noteable_type: 'MergeRequest',
        position: { new_path: 'a.ts', new_line: 3 },
      },
      merge_request: { iid: 12 },
    };
    expect(intentOf('gitlab', 'Note Hook', review, triggers)).toEqual({
      kind: 'comment_on_pull',
      pullNumber: 12,
      author: 'rev',
      body: 'use a constant',
      where: 'a.ts:3',
      checkRole: { login: 'rev', id: null },
    });
  });

  it('ignores events it does not act on, whatever the forge', () => {
    expect(intentOf('github', 'push', {}, triggers).kind).toBe('ignore');
    expect(intentOf('github', 'constructor', {}, triggers).kind).toBe('ignore');
    expect(intentOf('gitlab', 'Push Hook', {}, triggers).kind).toBe('ignore');
  });
});

describe('forge delivery signatures', () => {
  const body = Buffer.from('{"a":1}');
  it.each(['github', 'gitea', 'gitlab'] as const)(
    '%s: its own signature holds; another secret, no signature refused',
    (forge) => {
      const headers = Object.fromEntries(
        Object.entries(
          signForgeDelivery(forge, 's3cret-s3cret-s3cret', body.toString(), { id: 'd-1', event: 'issues' }),
        ).map(([k, v]) => [k.toLowerCase(), v]),
      );
      expect(verifyForgeDelivery(forge, 's3cret-s3cret-s3cret', headers, body)).toEqual({
        deliveryId: 'd-1',
        event: 'issues',
      });
      expect(() => verifyForgeDelivery(forge, 'another-secret-value', headers, body)).toThrow(/webhook secret/);
      expect(() => verifyForgeDelivery(forge, 's3cret-s3cret-s3cret', {}, body)).toThrow(/webhook secret/);
    },
  );

  it('Forgejo: its own header names hold too', () => {
    const gitea = signForgeDelivery('gitea', 'k'.repeat(20), body.toString(), { id: 'f-1', event: 'issues' });
    const headers = {
      'x-forgejo-signature': gitea['X-Gitea-Signature'],
      'x-forgejo-delivery': 'f-1',
      'x-forgejo-event': 'issues',
    };
    expect(verifyForgeDelivery('gitea', 'k'.repeat(20), headers, body)).toEqual({ deliveryId: 'f-1', event: 'issues' });
  });
});
