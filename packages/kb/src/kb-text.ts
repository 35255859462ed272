import { assertString, KbError } from './errors';
import { parseAtxHeading, scanLines, trimBlankLines } from './markdown';

export interface KbTextArticle {
  title: string;
  content: string;
}

/** Title given to text before the first `# ` heading and to a heading with no text. */
export const UNTITLED = 'Untitled';

/**
 * Splits whole-KB text (`PUT /kb`) into articles at top-level `# ` headings outside fenced code.
 * Text before the first heading becomes an article titled "Untitled" unless it is blank. Line endings
 * become `\n`; blank lines at either end of a content are dropped.
 */
export function splitKbText(text: string): KbTextArticle[] {
  assertString(text, 'KB text');
  const parts: Array<{ title: string | null; lines: string[] }> = [{ title: null, lines: [] }];
  for (const { line, fenced } of scanLines(text)) {
    const heading = fenced ? null : parseAtxHeading(line);
    if (heading?.level === 1) parts.push({ title: heading.text || UNTITLED, lines: [] });
    else (parts[parts.length - 1] as (typeof parts)[number]).lines.push(line);
  }
  const articles: KbTextArticle[] = [];
  for (const part of parts) {
    const content = trimBlankLines(part.lines).join('\n');
    if (part.title === null && content === '') continue;
    articles.push({ title: part.title ?? UNTITLED, content });
  }
  return articles;
}

/**
 * Renders articles as whole-KB text (`GET /kb`): `# <title>\n\n<content>` each, joined by a blank line.
 * A title's line breaks become spaces so it stays one heading line.
 */
export function joinKbText(articles: readonly KbTextArticle[]): string {
  if (!Array.isArray(articles)) throw new KbError('invalid_argument', 'articles must be an array');
  return articles
    .map((article, i) => {
      assertString(article?.title, `articles[${i}].title`);
      assertString(article.content, `articles[${i}].content`);
      const title = article.title.replace(/\s*[\r\n]+\s*/g, ' ').trim();
      return `# ${title}\n\n${article.content}`;
    })
    .join('\n\n');
}
