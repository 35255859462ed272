import { EMPTY_MCP_FIELDS, fieldsFromServer, McpFieldError, settingsFromFields, withEnabled } from './mcp-form';

describe('MCP server form', () => {
  it('sends an http server with its headers, a colon inside a value kept, and a stdio server with argv and env', () => {
    expect(
      settingsFromFields({
        ...EMPTY_MCP_FIELDS,
        name: 'issues',
        url: ' https://mcp.example.com/mcp ',
        headers: 'Authorization: Bearer ${{ secrets.TRACKER_TOKEN }}\n\nX-Trace: a:b\n',
        allowWrites: true,
      }),
    ).toEqual({
      transport: 'http',
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: 'Bearer ${{ secrets.TRACKER_TOKEN }}', 'X-Trace': 'a:b' },
      allow_writes: true,
      enabled: true,
    });
    expect(
      settingsFromFields({
        ...EMPTY_MCP_FIELDS,
        transport: 'stdio',
        command: 'npx\n-y\n@modelcontextprotocol/server-everything\n',
        env: 'API_KEY=${{ secrets.KEY }}\nMODE=a=b',
        enabled: false,
      }),
    ).toEqual({
      transport: 'stdio',
      command: ['npx', '-y', '@modelcontextprotocol/server-everything'],
      env: { API_KEY: '${{ secrets.KEY }}', MODE: 'a=b' },
      allow_writes: false,
      enabled: false,
    });
  });

  it('says which line is wrong, and that a stdio server needs a command', () => {
    expect(() => settingsFromFields({ ...EMPTY_MCP_FIELDS, url: 'https://x', headers: 'no colon here' })).toThrow(
      new McpFieldError('Headers: "no colon here" is not Name: value'),
    );
    expect(() => settingsFromFields({ ...EMPTY_MCP_FIELDS, transport: 'stdio', command: ' \n' })).toThrow(
      McpFieldError,
    );
  });

  it('round-trips a stored server through the form, and toggles it keeping every other setting', () => {
    const server = {
      name: 'files',
      transport: 'stdio' as const,
      command: ['node', 'server.js', '--root', 'a b'],
      env: { TOKEN: '${{ secrets.T }}' },
      allow_writes: false,
      enabled: true,
      created_at: '2026-11-27T09:00:00Z',
      updated_at: '2026-11-27T09:00:00Z',
      updated_by: null,
    };
    const { name: _name, created_at: _c, updated_at: _u, updated_by: _b, ...settings } = server;
    expect(settingsFromFields(fieldsFromServer(server))).toEqual(settings);
    expect(withEnabled(server, false)).toEqual({ ...settings, enabled: false });
  });
});
