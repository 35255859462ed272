/** How the app previews a file: as an image, rendered markdown, highlighted text, or not at all. */
export type PreviewKind = 'image' | 'markdown' | 'text' | 'none';

const IMAGES = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp', 'svg', 'ico', 'bmp', 'avif']);
const BINARY = new Set([
  'zip',
  'gz',
  'tgz',
  'tar',
  'pdf',
  'woff',
  'woff2',
  'ttf',
  'otf',
  'mp3',
  'mp4',
  'webm',
  'wasm',
  'exe',
  'so',
  'bin',
  'sqlite',
  'db',
]);

/** Text files larger than this open in a new tab instead of in the page. */
export const MAX_PREVIEW_BYTES = 512 * 1024;

export function previewKind(path: string, size: number): PreviewKind {
  const name = path.split('/').pop()!.toLowerCase();
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 ? name.slice(dot + 1) : '';
  if (IMAGES.has(ext)) return 'image';
  if (BINARY.has(ext) || size > MAX_PREVIEW_BYTES) return 'none';
  return ext === 'md' ? 'markdown' : 'text';
}

/** Whether fetched text is really binary (a NUL in its first 8000 characters, as git decides). */
export const looksBinary = (text: string) => text.slice(0, 8000).includes('\u0000');
