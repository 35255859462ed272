import MarkdownIt from 'markdown-it';

const parser = new MarkdownIt({ html: false, linkify: false });

/** Folded for comparing a heading with a title: case, surrounding space and markdown emphasis ignored. */
const fold = (text: string) => text.replace(/[*_`]/g, '').replace(/\s+/g, ' ').trim().toLowerCase();

/**
 * The article's content without a first `# <title>` line that repeats its title (the page already
 * shows the title as its heading). Anything else is left as it is.
 */
export function withoutRepeatedTitle(content: string, title: string): string {
  const match = /^\s*#\s+(.+?)\s*#*\s*(?:\r?\n|$)/.exec(content);
  if (!match || fold(match[1]!) !== fold(title)) return content;
  return content.slice(match[0].length).replace(/^\s*\n/, '');
}

/** Markdown as plain readable text: the words of every block, markup dropped, blocks joined by spaces. */
export function plainText(markdown: string): string {
  const parts: string[] = [];
  for (const token of parser.parse(markdown, {})) {
    if (token.type === 'inline') parts.push(inlineText(token.children ?? []), ' ');
    else if (token.type === 'fence' || token.type === 'code_block') parts.push(token.content, ' ');
  }
  return parts.join('').replace(/\s+/g, ' ').trim();
}

type Token = ReturnType<typeof parser.parse>[number];

/** The words of an inline run (text and code spans), line breaks as spaces, other markup dropped. */
function inlineText(children: readonly Token[]): string {
  return children
    .map((child) => {
      if (child.type === 'text' || child.type === 'code_inline') return child.content;
      return child.type === 'softbreak' || child.type === 'hardbreak' ? ' ' : '';
    })
    .join('');
}

/** A search hit's section without its own `##` heading line (shown as a heading instead), as plain text. */
export function sectionExcerpt(text: string, heading: string | null | undefined): string {
  const body = heading ? text.replace(/^\s*##\s+.*(?:\r?\n|$)/, '') : text;
  return plainText(body);
}

/** A cosine similarity as a percentage a person can compare: 0 % (nothing in common) to 100 %. */
export function matchPercent(score: number): number {
  return Math.round(Math.max(0, Math.min(1, score)) * 100);
}
