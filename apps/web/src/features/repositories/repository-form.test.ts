import { createBody, EMPTY_REPOSITORY_FIELDS, fieldsFromRepository, updateBody } from './repository-form';

describe('the repository form', () => {
  const fields = {
    ...EMPTY_REPOSITORY_FIELDS,
    name: ' shop ',
    url: 'https://github.com/acme/shop.git',
    credential: 'ghp_secret-token',
    triggerCommand: '/svc',
  };

  it('makes a create body: trimmed, empty triggers null, no API URL when none is typed', () => {
    expect(createBody(fields)).toEqual({
      name: 'shop',
      url: 'https://github.com/acme/shop.git',
      forge: 'github',
      default_branch: 'main',
      credential: { kind: 'token', value: 'ghp_secret-token' },
      trigger_label: null,
      trigger_command: '/svc',
    });
  });

  it('sends a credential in an edit only when a new one was typed', () => {
    const repository = {
      id: 'r1',
      project_id: 'p1',
      name: 'shop',
      url: 'https://github.com/acme/shop.git',
      forge: 'github' as const,
      api_base_url: 'https://api.github.com',
      default_branch: 'main',
      credential_kind: 'token' as const,
      trigger_label: null,
      trigger_command: null,
      webhook_url: 'http://svc/svc/api/hooks/forge/r1',
      created_by: 'u1',
      created_at: '2026-11-27T00:00:00Z',
      updated_at: '2026-11-27T00:00:00Z',
    };
    const editing = fieldsFromRepository(repository);
    expect(editing.credential).toBe('');
    expect(updateBody(editing)).not.toHaveProperty('credential');
    expect(updateBody({ ...editing, credential: 'new-token-value' }).credential).toEqual({
      kind: 'token',
      value: 'new-token-value',
    });
  });
});
