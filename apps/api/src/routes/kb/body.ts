import express, { type Request, type RequestHandler } from 'express';
import { KB_ARTICLE_MAX_CHARS, KbTextRequestSchema, MAX_NAME_CHARS } from '@svc/protocol';
import { splitKbText, type KbTextArticle } from '@svc/kb';
import { DomainError, invalidInput } from '../../domain/errors';
import { requireUtf8 } from '../../http/middleware';
import { parseInput, rejectUnstorableText } from '../../domain/validate';

/** Whole-KB text bodies may be larger than JSON ones (1 MB); still well under what a request may carry. */
export const KB_TEXT_LIMIT = '5mb';

/** Parses `text/plain` (and `text/markdown`) bodies of `PUT /kb`, refusing invalid UTF-8. */
export const kbTextParser: RequestHandler = express.text({
  type: ['text/plain', 'text/markdown'],
  limit: KB_TEXT_LIMIT,
  verify: requireUtf8,
});

/** The whole-KB text of `PUT /kb`, from a text body or JSON `{text}`; 415 for any other body. */
export function kbTextFromRequest(req: Request): string {
  if (typeof req.body === 'string') {
    rejectUnstorableText(req.body);
    return req.body;
  }
  if (req.is('application/json')) return parseInput(KbTextRequestSchema, req.body).text;
  throw new DomainError('unsupported_media_type', 'send the KB as text/plain or as JSON {"text": ...}');
}

/** Splits the text into articles, checking each against the limits of a single article. */
export function kbArticlesFromText(text: string): KbTextArticle[] {
  const articles = splitKbText(text);
  articles.forEach((article, i) => {
    if (article.title.length > MAX_NAME_CHARS)
      throw invalidInput(`article ${i + 1}: the title is longer than ${MAX_NAME_CHARS} characters`);
    if (article.content.length > KB_ARTICLE_MAX_CHARS)
      throw invalidInput(`article ${i + 1}: the content is longer than ${KB_ARTICLE_MAX_CHARS} characters`);
  });
  return articles;
}
