import { defaultAppUrl, ensureAppUrl } from './report';

describe('defaultAppUrl', () => {
  it('uses app_base_url plus the workflow id, else the server copy of the workspace', () => {
    expect(defaultAppUrl({ appBaseUrl: 'https://apps.example.com', serverUrl: 'https://svc' }, 'wf 1')).toBe(
      'https://apps.example.com/wf%201/',
    );
    expect(defaultAppUrl({ appBaseUrl: undefined, serverUrl: 'https://svc' }, 'wf1')).toBe(
      'https://svc/svc/api/workflows/wf1/files/index.html',
    );
  });

  it("names the server's app link when the worker has no app_base_url", () => {
    const link = 'https://svc/svc/apps/k3y/';
    expect(defaultAppUrl({ appBaseUrl: undefined, serverUrl: 'https://svc' }, 'wf1', link)).toBe(link);
    expect(defaultAppUrl({ appBaseUrl: 'https://apps.example.com', serverUrl: 'https://svc' }, 'wf1', link)).toBe(
      'https://apps.example.com/wf1/',
    );
    expect(defaultAppUrl({ appBaseUrl: undefined, serverUrl: 'https://svc' }, 'wf1', null)).toBe(
      'https://svc/svc/api/workflows/wf1/files/index.html',
    );
  });
});

describe('ensureAppUrl', () => {
  const url = 'https://apps.example.com/wf1/';

  it('puts the URL under the title when the report lacks it', () => {
    expect(ensureAppUrl('# Shop\n\n## Summary\nDone.', url)).toEqual({
      text: `# Shop\n\nApp URL: ${url}\n\n## Summary\nDone.`,
      appUrl: url,
    });
    expect(ensureAppUrl('# Shop\n## Summary', url).text).toBe(`# Shop\n\nApp URL: ${url}\n\n## Summary`);
    expect(ensureAppUrl('Plain text.', url).text).toBe(`App URL: ${url}\n\nPlain text.`);
  });

  it('keeps a report that already names the URL', () => {
    const text = `# Shop\n\nOpen ${url} to see it.`;
    expect(ensureAppUrl(text, url)).toEqual({ text, appUrl: url });
  });

  it('takes the URL the agent reported on an App URL line', () => {
    const text = '# Shop\n\nApp URL: <http://10.0.0.5:3000/>\n';
    expect(ensureAppUrl(text, url)).toEqual({ text, appUrl: 'http://10.0.0.5:3000/' });
  });
});
