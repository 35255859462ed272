import { renderText, renderValue, unknownTemplateVariables, type TemplateValues } from './template';

const values: TemplateValues = {
  request_number: 7,
  rule_call: 2,
  turn: 1,
  tool_message_count: 1,
  message_count: 4,
  step_number: 3,
  step_total: 5,
  model: 'tiny',
};

describe('templates', () => {
  it('replaces known placeholders, with or without inner spaces', () => {
    expect(renderText('step {{step_number}} of {{ step_total }} on {{model}}', values)).toBe('step 3 of 5 on tiny');
  });

  it('keeps a lone numeric placeholder a number and renders nested strings', () => {
    expect(
      renderValue({ seconds: '{{step_number}}', reason: ['call {{rule_call}}'], keep: true, n: null }, values),
    ).toEqual({
      seconds: 3,
      reason: ['call 2'],
      keep: true,
      n: null,
    });
    expect(renderValue('{{model}}', values)).toBe('tiny');
    expect(renderValue('{{step_number}}', { ...values, step_number: '' })).toBe('');
  });

  it('finds unknown variable names anywhere in a value', () => {
    expect(unknownTemplateVariables(['{{turn}}', { a: '{{stepnumber}} {{x}}' }, 3])).toEqual(['stepnumber', 'x']);
    expect(unknownTemplateVariables({ text: 'no placeholders, {single} braces' })).toEqual([]);
  });
});
