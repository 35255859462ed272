/** What the chunker needs of a KbArticle. */
export interface KbArticleInput {
  id: string;
  title: string;
  content: string;
}

/** One section of an article: the preamble (heading null) or a `##` section including its heading line. */
export interface KbChunk {
  article_id: string;
  article_title: string;
  heading: string | null;
  index: number;
  text: string;
}

/** The wire shape of `GET /kb/search` results. */
export interface KbSearchResult {
  article_id: string;
  article_title: string;
  text: string;
  score: number;
}
