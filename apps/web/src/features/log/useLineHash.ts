import { useEffect, useState } from 'react';
import { parseLineAnchor } from './output-lines';

/** The log line the location hash points at (`#log-<seq>-L<n>`), following hash changes. */
export function useLineHash(): { seq: number; line: number } | null {
  const [hash, setHash] = useState(() => window.location.hash);
  useEffect(() => {
    const changed = () => setHash(window.location.hash);
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return parseLineAnchor(hash);
}
