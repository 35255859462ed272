import MarkdownIt from 'markdown-it';
import { useMemo } from 'react';

// html: false escapes any HTML in the source, so the rendered output is safe to insert.
const renderer = new MarkdownIt({ html: false, linkify: true, typographer: false });
const defaultLinkOpen =
  renderer.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
// Links in user content open in a new tab and pass no opener or referrer to the target.
renderer.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx]!.attrSet('target', '_blank');
  tokens[idx]!.attrSet('rel', 'noopener noreferrer');
  return defaultLinkOpen(tokens, idx, options, env, self);
};

/** Markdown to HTML with the app's one markdown configuration (no raw HTML, links open in a new tab). */
export function renderMarkdown(source: string): string {
  return renderer.render(source);
}

/** Rendered markdown (KB articles, the report) in the app's own `.markdown` style. */
export function Markdown({ source, className }: { source: string; className?: string }) {
  const html = useMemo(() => renderMarkdown(source), [source]);
  return (
    <div className={className ? `markdown ${className}` : 'markdown'} dangerouslySetInnerHTML={{ __html: html }} />
  );
}
