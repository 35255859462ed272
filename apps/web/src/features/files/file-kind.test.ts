import { looksBinary, MAX_PREVIEW_BYTES, previewKind } from './file-kind';

describe('previewKind', () => {
  it('shows images, renders markdown, highlights text and leaves binaries and big files to a new tab', () => {
    expect(previewKind('shop/logo.PNG', 10)).toBe('image');
    expect(previewKind('report.md', 10)).toBe('markdown');
    expect(previewKind('src/app.ts', 10)).toBe('text');
    expect(previewKind('Makefile', 10)).toBe('text');
    expect(previewKind('dist/app.zip', 10)).toBe('none');
    expect(previewKind('big.log', MAX_PREVIEW_BYTES + 1)).toBe('none');
    // an image is shown whatever its size: the browser streams it
    expect(previewKind('photo.jpg', MAX_PREVIEW_BYTES + 1)).toBe('image');
  });

  it('spots binary content that came with a text-like name', () => {
    expect(looksBinary('PK\u0003\u0004\u0000\u0000')).toBe(true);
    expect(looksBinary('plain text')).toBe(false);
  });
});
