import { matchPercent, plainText, sectionExcerpt, withoutRepeatedTitle } from './text';

describe('KB text for display', () => {
  it('drops a first heading that repeats the title, and nothing else', () => {
    expect(withoutRepeatedTitle('# Ports\n\n## Web\nport 3000', 'Ports')).toBe('## Web\nport 3000');
    expect(withoutRepeatedTitle('#  *ports*  \nbody', 'Ports')).toBe('body');
    expect(withoutRepeatedTitle('# Other\nbody', 'Ports')).toBe('# Other\nbody');
    expect(withoutRepeatedTitle('## Ports\nbody', 'Ports')).toBe('## Ports\nbody');
  });

  it('turns a section into readable text without markup or its heading line', () => {
    const section = '## Web\nThe **web app** listens on `3000`.\n\n- see [docs](http://x)\n\n```sh\nmake run\n```';
    expect(sectionExcerpt(section, 'Web')).toBe('The web app listens on 3000. see docs make run');
    expect(plainText('# Title\n\ntext')).toBe('Title text');
    expect(sectionExcerpt('Intro text', null)).toBe('Intro text');
  });

  it('shows a similarity as a whole percentage, clamped to 0..100', () => {
    expect(matchPercent(0.5948)).toBe(59);
    expect(matchPercent(-0.2)).toBe(0);
    expect(matchPercent(1.2)).toBe(100);
  });
});
