import { AppLinks } from '../../src/apps/app-link';

const KEY = 'k'.repeat(43);

describe('AppLinks', () => {
  it('gives each app the links of its own config: two apps in one process do not share a base', () => {
    const first = new AppLinks({ appOrigin: 'https://apps.one.example', publicUrl: 'https://one.example' });
    const second = new AppLinks({ appOrigin: null, publicUrl: 'https://two.example' });
    expect(first.linkOf({ app_key: KEY })).toBe(`https://apps.one.example/svc/apps/${KEY}/`);
    expect(second.linkOf({ app_key: KEY })).toBe(`https://two.example/svc/apps/${KEY}/`);
  });

  it('reads the base at each use (the public URL is known only once the server listens)', () => {
    const config = { appOrigin: null, publicUrl: 'http://localhost:0' };
    const links = new AppLinks(config);
    config.publicUrl = 'http://127.0.0.1:4123';
    expect(links.linkOf({ app_key: KEY })).toBe(`http://127.0.0.1:4123/svc/apps/${KEY}/`);
  });

  it('has no link for a workflow without a key', () => {
    expect(new AppLinks({ appOrigin: null, publicUrl: 'https://one.example' }).linkOf({ app_key: null })).toBeNull();
  });
});
