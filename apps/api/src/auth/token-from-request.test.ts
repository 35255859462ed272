import fc from 'fast-check';
import { SESSION_COOKIE, tokenFromRequest } from './authenticate';

/** The Cookie header rule read the plain way: split into pairs, the first pair with the name wins. */
function sessionCookieByPairs(cookie: string): string | null {
  for (const part of cookie.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name !== SESSION_COOKIE) continue;
    try {
      return decodeURIComponent(rest.join('='));
    } catch {
      return null;
    }
  }
  return null;
}

describe('tokenFromRequest', () => {
  it('prefers the bearer token, and takes the session cookie among others', () => {
    expect(tokenFromRequest({ authorization: 'Bearer abc', cookie: `${SESSION_COOKIE}=x` })).toBe('abc');
    expect(tokenFromRequest({ authorization: 'Basic abc' })).toBe('');
    expect(tokenFromRequest({ cookie: `a=1; ${SESSION_COOKIE}=t%2Bk=n ; b=2` })).toBe('t+k=n');
    expect(tokenFromRequest({ cookie: `${SESSION_COOKIE}_old=1; ${SESSION_COOKIE}` })).toBe('');
    expect(tokenFromRequest({ cookie: `${SESSION_COOKIE}=%zz` })).toBeNull();
    expect(tokenFromRequest({ cookie: '' })).toBeNull();
    expect(tokenFromRequest({})).toBeNull();
  });

  it('reads any Cookie header as splitting it into pairs would', () => {
    const piece = fc.constantFrom(SESSION_COOKIE, 'a', '=', ';', ' ', '%', '%2B', 'x', '\t', '==');
    const header = fc.array(piece, { maxLength: 14 }).map((pieces) => pieces.join(''));
    fc.assert(
      fc.property(header, (cookie) => {
        expect(tokenFromRequest({ cookie })).toBe(sessionCookieByPairs(cookie));
      }),
      { numRuns: 2000 },
    );
  });
});
