import { resolveConfig } from './config';
import { TOOL_OUTPUT_MAX_BYTES_LIMIT } from './link/frame-bounds';

describe('config bounds', () => {
  const ctx = { env: {}, hostname: 'h', baseDir: '/tmp' };
  const base = {
    server_url: 'http://127.0.0.1:1',
    token: 't',
    llm: { base_url: 'http://127.0.0.1:2', api_key: 'k', model: 'm' },
  };

  it('caps tool_output_max_bytes so a log entry always fits one frame', () => {
    expect(resolveConfig({ ...base, tool_output_max_bytes: 8_000_000 }, ctx).toolOutputMaxBytes).toBe(
      TOOL_OUTPUT_MAX_BYTES_LIMIT,
    );
    expect(resolveConfig({ ...base, tool_output_max_bytes: 4096 }, ctx).toolOutputMaxBytes).toBe(4096);
  });
});
