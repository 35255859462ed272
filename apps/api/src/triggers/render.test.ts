import { MAX_RENDERED_CHARS, renderRequirement } from './render';

describe('renderRequirement', () => {
  const payload = {
    action: 'opened',
    issue: { number: 7, title: 'Crash on save', labels: [{ name: 'bug' }], locked: false, body: null },
    repository: { full_name: 'octo/shop' },
  };

  it('replaces each placeholder with the field at its path', () => {
    expect(renderRequirement('Fix #{{issue.number}} in {{ repository.full_name }}: {{issue.title}}', payload)).toBe(
      'Fix #7 in octo/shop: Crash on save',
    );
  });

  it('reads array items by index, renders booleans, objects as JSON and missing or null fields as nothing', () => {
    expect(
      renderRequirement('{{issue.labels.0.name}}|{{issue.locked}}|{{issue.labels}}|{{nope.x}}|{{issue.body}}', payload),
    ).toBe('bug|false|[{"name":"bug"}]||');
  });

  it('evaluates nothing: expressions, sections and prototype keys stay text or render empty', () => {
    expect(
      renderRequirement('{{#issue}}x{{/issue}} {{issue.number + 1}} {{constructor.name}} {{__proto__}}', payload),
    ).toBe('{{#issue}}x{{/issue}} {{issue.number + 1}}  ');
  });

  it('never renders a value again, so a payload cannot inject placeholders', () => {
    expect(renderRequirement('{{a}}', { a: '{{b}}', b: 'secret' })).toBe('{{b}}');
  });

  it('cuts the result to the cap without splitting a surrogate pair', () => {
    const out = renderRequirement('{{a}}{{a}}{{a}}', { a: '😀'.repeat(6000) });
    expect(out.length).toBeLessThanOrEqual(MAX_RENDERED_CHARS);
    expect(out.endsWith('😀')).toBe(true);
  });
});
