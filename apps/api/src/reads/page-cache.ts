import { LRUCache } from 'lru-cache';

/** A JSON answer as it goes on the wire: the encoded body and its ETag. */
export interface EncodedAnswer {
  json: Buffer;
  etag: string | undefined;
}

/** An encoded page and the stamp read before its data (see reads/pages.ts). */
export interface StampedPage extends EncodedAnswer {
  stamp: string;
}

/** Encoded log and LLM-call pages by workflow, view and query; one per app, built at start-up. */
export type PageCache = LRUCache<string, StampedPage>;

export const PAGE_CACHE_BYTES = 32 * 1024 * 1024;

/** Bounded by bytes, the least recently used go first; a page above a sixteenth of it is not kept. */
export function pageCache(maxBytes = PAGE_CACHE_BYTES): PageCache {
  return new LRUCache<string, StampedPage>({
    maxSize: maxBytes,
    maxEntrySize: maxBytes / 16,
    sizeCalculation: (page, key) => page.json.length + 2 * (key.length + page.stamp.length + (page.etag?.length ?? 0)),
  });
}
