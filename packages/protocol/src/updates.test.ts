import { parseWith } from './parse';
import { UPDATE_DATA_SCHEMAS, UPDATE_KINDS, UpdateBodySchema, UpdateKindSchema } from './updates';

describe('update kinds', () => {
  it('lists the kinds of CONTRACT section 4 and CONTRACT-V2 (step_diff), issue 25 (repository)', () => {
    expect([...UPDATE_KINDS].sort()).toEqual([
      'file_changed',
      'llm_call',
      'log_entry',
      'report',
      'repository',
      'snapshot',
      'status',
      'step_diff',
      'title',
    ]);
    expect(UpdateKindSchema.options).toEqual(UPDATE_KINDS);
  });

  it.each(UPDATE_KINDS)('routes kind %s to its own data schema', (kind) => {
    // an empty object fits none of the data schemas, so the error must point inside `data`
    const result = parseWith(UpdateBodySchema, { kind, data: {} });
    expect(result.ok).toBe(false);
    expect(result.ok ? null : result.error.path).toMatch(/^data\./);
    expect(UPDATE_DATA_SCHEMAS[kind].safeParse({}).success).toBe(false);
  });

  it('keeps a snapshot pending_question optional for older workers', () => {
    const data = { phase: 'planning', current_step: null, steps: [], memo: [] };
    expect(parseWith(UpdateBodySchema, { kind: 'snapshot', data })).toEqual({
      ok: true,
      value: { kind: 'snapshot', data },
    });
  });

  it('rejects a fractional current_step', () => {
    const data = { phase: 'executing', current_step: 0.5, steps: [], memo: [] };
    const result = parseWith(UpdateBodySchema, { kind: 'snapshot', data });
    expect(result.ok ? null : result.error.path).toBe('data.current_step');
  });
});
