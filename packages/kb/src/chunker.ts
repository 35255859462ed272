import { assertString } from './errors';
import { parseAtxHeading, scanLines, trimBlankLines } from './markdown';
import type { KbArticleInput, KbChunk } from './types';

interface Section {
  heading: string | null;
  lines: string[];
}

/**
 * One chunk per `##` section (heading line included) plus the text before the first `##` when it is
 * not blank. `#`, `###` and deeper headings, and `##` lines inside fenced code, do not split.
 * Line endings become `\n`; blank lines at a chunk's ends are dropped.
 */
export function chunkArticle(article: KbArticleInput): KbChunk[] {
  assertString(article?.id, 'article.id');
  assertString(article.title, 'article.title');
  assertString(article.content, 'article.content');

  const sections: Section[] = [{ heading: null, lines: [] }];
  for (const { line, fenced } of scanLines(article.content)) {
    const heading = fenced ? null : parseAtxHeading(line);
    if (heading?.level === 2) sections.push({ heading: heading.text, lines: [line] });
    else (sections[sections.length - 1] as Section).lines.push(line);
  }

  const chunks: KbChunk[] = [];
  for (const section of sections) {
    const text = trimBlankLines(section.lines).join('\n');
    if (section.heading === null && text === '') continue;
    chunks.push({
      article_id: article.id,
      article_title: article.title,
      heading: section.heading,
      index: chunks.length,
      text,
    });
  }
  return chunks;
}

/** The text to embed for a chunk: its article title gives a section the context it lacks alone. */
export function chunkEmbeddingText(chunk: Pick<KbChunk, 'article_title' | 'text'>): string {
  return `${chunk.article_title}\n\n${chunk.text}`;
}
