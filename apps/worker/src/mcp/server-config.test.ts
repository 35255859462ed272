import { execFileSync } from 'node:child_process';
import type { McpServerConfig } from '@svc/protocol';
import { MissingSecretError, resolveSecretReferences, serversOfRun, shellCommandOf } from './server-config';

const http = (name: string, extra: Partial<McpServerConfig> = {}): McpServerConfig => ({
  name,
  transport: 'http',
  url: `https://${name}.example/mcp`,
  allow_writes: false,
  enabled: true,
  ...extra,
});

describe('the MCP servers of a run', () => {
  it("puts the run's secrets where the values reference them, and refuses an unknown one", () => {
    const secrets = [{ name: 'TOKEN', value: 's3cr3t' }];
    expect(
      resolveSecretReferences(
        'docs',
        { Authorization: 'Bearer ${{ secrets.TOKEN }}', Plain: 'x', Both: '${{secrets.TOKEN}}-${{ secrets.TOKEN }}' },
        secrets,
      ),
    ).toEqual({ Authorization: 'Bearer s3cr3t', Plain: 'x', Both: 's3cr3t-s3cr3t' });
    expect(() => resolveSecretReferences('docs', { A: '${{ secrets.OTHER }}' }, secrets)).toThrow(MissingSecretError);
  });

  it("lets a project's server replace the worker's of the same name, and leaves disabled ones out", () => {
    const servers = serversOfRun(
      [http('docs'), http('search'), http('old')],
      [http('docs', { url: 'https://project.example/mcp' }), http('old', { enabled: false })],
    );
    expect(servers.map((s) => [s.name, s.url])).toEqual([
      ['docs', 'https://project.example/mcp'],
      ['search', 'https://search.example/mcp'],
    ]);
  });

  it('quotes a stdio argv for bash exactly', () => {
    const argv = ['printf', '%s|', "it's", '$HOME', 'a b', '`id`'];
    expect(execFileSync('bash', ['-c', shellCommandOf(argv)], { encoding: 'utf8' })).toBe("it's|$HOME|a b|`id`|");
  });
});
