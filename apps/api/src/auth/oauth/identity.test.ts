import { chooseLogin, identityFromSsoUserInfo, identityFromUserInfo, sanitizeLogin } from './identity';

describe('sanitizeLogin', () => {
  it.each([
    ['Ann.Example', 'ann.example'],
    ['  José Núñez ', 'jose-nunez'],
    ['dana+ci@corp', 'dana-ci-corp'],
    ['--__root__--', 'root'],
    ['a//b\\\\c', 'a-b-c'],
    ['Ｆｕｌｌｗｉｄｔｈ', 'fullwidth'],
  ])('turns %j into %j', (raw, login) => {
    expect(sanitizeLogin(raw)).toBe(login);
  });

  it('returns null when nothing usable is left', () => {
    expect(sanitizeLogin('小明')).toBeNull();
    expect(sanitizeLogin('---')).toBeNull();
  });

  it('caps the length at 64 characters without a trailing separator', () => {
    const login = sanitizeLogin(`${'a'.repeat(63)}-bbbb`)!;
    expect(login).toBe('a'.repeat(63));
  });
});

describe('chooseLogin', () => {
  it('takes the first usable candidate, else a stable name from the subject', () => {
    expect(chooseLogin('oauth2', 's1', [null, '!!!', 'Second'])).toBe('second');
    const fallback = chooseLogin('sso', 'open-123', ['小明']);
    expect(fallback).toMatch(/^sso-[0-9a-f]{8}$/);
    expect(chooseLogin('sso', 'open-123', [])).toBe(fallback);
    expect(chooseLogin('sso', 'open-124', [])).not.toBe(fallback);
  });
});

describe('identityFromUserInfo', () => {
  it('reads OIDC claims, preferring preferred_username, then login, nickname and the e-mail local part', () => {
    expect(
      identityFromUserInfo({
        sub: 'u1',
        preferred_username: 'Ann',
        email: 'a@x.org',
        email_verified: true,
        name: 'Ann A',
        picture: 'https://p/a',
      }),
    ).toEqual({
      provider: 'oauth2',
      subject: 'u1',
      login: 'ann',
      email: 'a@x.org',
      name: 'Ann A',
      avatarUrl: 'https://p/a',
    });
    expect(identityFromUserInfo({ sub: 'u2', email: 'Bea.Smith@x.org', email_verified: true })?.login).toBe(
      'bea.smith',
    );
  });

  it('reads GitHub-style numeric ids, login and avatar_url', () => {
    expect(identityFromUserInfo({ id: 42, login: 'octo', avatar_url: 'https://a/42' })).toMatchObject({
      subject: '42',
      login: 'octo',
      avatarUrl: 'https://a/42',
    });
  });

  it('drops an e-mail the provider marks unverified, also as a login source (ADMIN_USERS may list both)', () => {
    const identity = identityFromUserInfo({ sub: 'u3', email: 'root@x.org', email_verified: false });
    expect(identity).toMatchObject({ email: null, login: expect.stringMatching(/^oauth2-[0-9a-f]{8}$/) });
  });

  it('keeps only an e-mail the provider asserts verified (absent email_verified is not verified)', () => {
    expect(identityFromUserInfo({ sub: 'u4', email: 'root@x.org' })).toMatchObject({ email: null });
    expect(identityFromUserInfo({ sub: 'u5', email: 'r@x.org', email_verified: 'true' })).toMatchObject({
      email: 'r@x.org',
    });
  });

  it('returns null without a subject, or with a non-string one', () => {
    expect(identityFromUserInfo({ preferred_username: 'x' })).toBeNull();
    expect(identityFromUserInfo({ sub: { nested: true } })).toBeNull();
  });
});

describe('identityFromSsoUserInfo', () => {
  it('uses open_id as the subject and nickname and avatar for the profile', () => {
    expect(identityFromSsoUserInfo({ open_id: 'o1', union_id: 'u1', nickname: 'Lin', avatar: 'https://p/l' })).toEqual({
      provider: 'sso',
      subject: 'o1',
      login: 'lin',
      email: null,
      name: 'Lin',
      avatarUrl: 'https://p/l',
    });
    expect(identityFromSsoUserInfo({ nickname: 'Lin' })).toBeNull();
  });
});
