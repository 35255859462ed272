import { parse } from 'yaml';
import { toolInputYamlCache } from '../caches';
import { presentLogEntry, presentLogEntryJson, toolInputYaml, ToolInputYaml } from './logs';

describe('toolInputYaml', () => {
  it('writes the stored JSON as YAML that parses back to the same value', () => {
    const input = { command: 'npm test', env: { CI: true }, args: ['--watch=false', 3], note: null };
    const text = toolInputYaml(input);
    expect(text).toContain('command: npm test\n');
    expect(parse(text)).toEqual(input);
  });

  it('keeps multi-line strings readable as block scalars without folding long lines', () => {
    const script = `set -e\necho ${'x'.repeat(200)}\n`;
    const text = toolInputYaml({ script });
    expect(text.startsWith('script: |')).toBe(true);
    expect(text).toContain(`echo ${'x'.repeat(200)}`);
    expect(parse(text)).toEqual({ script });
  });

  it('renders an empty or missing input as an empty mapping', () => {
    expect(toolInputYaml({})).toBe('{}\n');
    expect(toolInputYaml(null)).toBe('{}\n');
  });
});

describe('presentLogEntry', () => {
  it('whitelists the wire fields and formats the time', () => {
    const created = new Date('2026-01-02T03:04:05.000Z');
    const entry = presentLogEntry({
      id: 'l1',
      workflow_id: 'wf',
      seq: 4,
      step_index: 1,
      tool_name: 'save_memo',
      tool_input: { note: 'hi' },
      output: 'ok',
      is_error: false,
      revision: 2,
      duration_ms: 31,
      output_object: null,
      output_total_bytes: null,
      output_line_times: null,
      created_at: created,
    });
    expect(entry).toEqual({
      id: 'l1',
      seq: 4,
      step_index: 1,
      tool_name: 'save_memo',
      tool_input: 'note: hi\n',
      output: 'ok',
      is_error: false,
      revision: 2,
      duration_ms: 31,
      command: null,
      output_total_bytes: null,
      output_line_times: null,
      created_at: '2026-01-02T03:04:05.000Z',
    });
  });

  it('names the command of an execute_on_worker call, in both presenters alike', () => {
    const row = {
      id: 'l2',
      workflow_id: 'wf',
      seq: 5,
      step_index: 0,
      tool_name: 'execute_on_worker',
      tool_input: { command: 'echo "hi" && ls', timeout_seconds: 5 },
      output: '[exit code 0]',
      is_error: false,
      revision: 0,
      duration_ms: null,
      output_object: null,
      output_total_bytes: null,
      output_line_times: null,
      created_at: new Date('2026-01-02T03:04:05.000Z'),
    };
    const entry = presentLogEntry(row);
    expect(entry.command).toBe('echo "hi" && ls');
    const { tool_input, ...rest } = row;
    const yaml = new ToolInputYaml(toolInputYamlCache());
    expect(presentLogEntryJson({ ...rest, tool_input_json: JSON.stringify(tool_input) }, yaml)).toEqual(entry);
    expect(presentLogEntry({ ...row, tool_name: 'write_file' }).command).toBeNull();
  });
});

describe('ToolInputYaml', () => {
  it('gives what converting the parsed text gives, the first time, from its cache and once evicted', () => {
    const json = JSON.stringify({ command: 'make\nmake test', n: [1, 2] });
    const fresh = toolInputYaml(JSON.parse(json));
    const cache = toolInputYamlCache(json.length + fresh.length); // room for one such entry
    const yaml = new ToolInputYaml(cache);
    expect(yaml.ofJsonText(json)).toBe(fresh);
    expect(yaml.ofJsonText(json)).toBe(fresh);
    expect(cache.has(json)).toBe(true);
    yaml.ofJsonText(json.replace('make test', 'make TEST'));
    expect(cache.has(json)).toBe(false);
    expect(yaml.ofJsonText(json)).toBe(fresh);
  });
});
