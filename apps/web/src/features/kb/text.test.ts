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

  it('keeps line breaks and indented code as spaces and words, and drops images and raw HTML', () => {
    expect(plainText('one\ntwo  \nthree\\\nfour')).toBe('one two three four');
    expect(plainText('text\n\n    indented code\n\nafter')).toBe('text indented code after');
    expect(plainText('an ![alt](x.png) image and <b>html</b>')).toBe('an image and <b>html</b>');
    expect(plainText('> quoted *and* `code`')).toBe('quoted and code');
  });

  it('shows a similarity as a whole percentage, clamped to 0..100', () => {
    expect(matchPercent(0.5948)).toBe(59);
    expect(matchPercent(-0.2)).toBe(0);
    expect(matchPercent(1.2)).toBe(100);
  });
});
