import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../lib/query-keys';
import { shorten } from '../../lib/format';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { searchKb } from './api';

/** Semantic search over the knowledge base (top 5 sections, each with its article). */
export function KbSearch({ onOpen }: { onOpen(articleId: string): void }) {
  const [text, setText] = useState('');
  const [query, setQuery] = useState('');
  const results = useQuery({
    queryKey: queryKeys.kbSearch(query),
    queryFn: () => searchKb(query),
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
        {results.data?.map((hit, i) => (
          <li key={`${hit.article_id}-${i}`}>
            <button type="button" className="link-button" onClick={() => onOpen(hit.article_id)}>
              {hit.article_title}
            </button>
            <span className="muted small"> score {hit.score.toFixed(2)}</span>
            <p className="snippet">{shorten(hit.text, 400)}</p>
          </li>
        ))}
      </ol>
    </section>
  );
}
