import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../lib/query-keys';
import { shorten } from '../../lib/format';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { searchKb } from './api';
import { matchPercent, sectionExcerpt, withoutRepeatedTitle } from './text';
import './kb.css';

/** Semantic search over the knowledge base: the best sections, each under its heading, with its article. */
export function KbSearch({ onOpen }: { onOpen(articleId: string): void }) {
  const [text, setText] = useState('');
  const [query, setQuery] = useState('');
  const results = useQuery({
    queryKey: queryKeys.kbSearch(query),
    // The API returns the top 5 whatever their score (the agent's kb_search); the page shows only the
    // sections that share something with the query.
    queryFn: async () => (await searchKb(query)).filter((hit) => hit.score > 0),
    enabled: query !== '',
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setQuery(text.trim());
  };
  return (
    <section aria-labelledby="kb-search-heading">
      <h2 id="kb-search-heading">Search</h2>
      <form role="search" onSubmit={submit} className="row">
        <label className="grow">
          <span className="visually-hidden">Search the knowledge base</span>
          <input
            type="search"
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder="e.g. which port does the web app use?"
          />
        </label>
        <button type="submit">Search</button>
      </form>
      {results.isFetching && <Loading what="results" />}
      <ErrorNote error={results.error} />
      {results.isSuccess && results.data.length === 0 && <Empty>No matching sections.</Empty>}
      <ol className="search-results">
        {results.data?.map((hit, i) => {
          const section = withoutRepeatedTitle(hit.text, hit.article_title);
          const excerpt = shorten(sectionExcerpt(section, hit.heading), 300);
          return (
            <li key={`${hit.article_id}-${i}`} className="search-hit">
              <h3>
                <button type="button" className="link-button" onClick={() => onOpen(hit.article_id)}>
                  {hit.heading ?? hit.article_title}
                </button>
              </h3>
              <p className="hit-meta small muted">
                {hit.heading ? <>in {hit.article_title} · </> : null}
                <span title={`cosine similarity ${hit.score.toFixed(3)}`}>{matchPercent(hit.score)} % match</span>
              </p>
              {excerpt && <p className="snippet">{excerpt}</p>}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
