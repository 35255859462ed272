import { truncateBytes } from '@svc/text';

export const PLACEHOLDER_TITLE_MAX_BYTES = 80;

/** The title shown until a worker supplies one: the first non-blank line, cut UTF-8-safely to 80 bytes. */
export function placeholderTitle(requirement: string): string {
  const line = requirement.split(/\r\n|\r|\n/).find((l) => l.trim() !== '') ?? '';
  return truncateBytes(line.trim(), PLACEHOLDER_TITLE_MAX_BYTES);
}
