import { originAllowed } from './upgrade-auth';

describe('originAllowed', () => {
  const publicUrl = 'https://svc.example.com/base';

  it("accepts the server's own origin and the allowed ones, comparing origins only", () => {
    expect(originAllowed('https://svc.example.com', publicUrl, [])).toBe(true);
    expect(originAllowed('https://app.example.com', publicUrl, ['https://app.example.com/'])).toBe(true);
  });

  it('refuses other schemes, hosts and ports, the opaque "null" origin and garbage', () => {
    expect(originAllowed('http://svc.example.com', publicUrl, [])).toBe(false);
    expect(originAllowed('https://svc.example.com:8443', publicUrl, [])).toBe(false);
    expect(originAllowed('https://evil.example.com', publicUrl, ['https://app.example.com'])).toBe(false);
    expect(originAllowed('null', publicUrl, [])).toBe(false);
    expect(originAllowed('not a url', publicUrl, ['not a url'])).toBe(false);
  });
});
